import { cacheSignal, type CacheScope, type CacheSignal } from './signal.js';

export interface Versioned<V> { version: number; value: V }

/**
 * A map whose entries are good while the scopes it depends on are unchanged (see
 * signal.ts). Bounded: when full it starts over, which only costs reloads.
 */
export class VersionedCache<K, V> {
  private entries = new Map<K, Versioned<V>>();

  constructor(readonly scopes: readonly CacheScope[], private maxEntries: number, private signal: CacheSignal = cacheSignal) {}

  /** Take this before reading what will be cached: a change during the read retires the entry. */
  version(): number {
    return this.signal.version(this.scopes);
  }

  entry(key: K): Versioned<V> | undefined {
    const hit = this.entries.get(key);
    return hit && hit.version === this.version() ? hit : undefined;
  }

  get(key: K): V | undefined {
    return this.entry(key)?.value;
  }

  set(key: K, value: V, version: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { version, value });
  }

  async load(key: K, loader: () => Promise<V>): Promise<V> {
    const hit = this.entry(key);
    if (hit) return hit.value;
    const version = this.version();
    const value = await loader();
    this.set(key, value, version);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
