import { cacheSignal, type CacheScope, type CacheSignal, type Retirement } from './signal.js';

/** About 64 MB of JSON (a few tens of thousands of messages); the oldest stored goes first. */
const MAX_CHARS = 64 * 1024 * 1024;

/** A changed user (name, email, avatar), stream (name) or organization can touch any message's wire form. */
const WHOLE: readonly CacheScope[] = ['users', 'realms', 'streams'];

/**
 * Serialised messages for reads. Presenting and serialising 100 messages cost more than
 * finding them, and a message's wire form is the same for every reader but for its
 * `flags`; so each message is kept as JSON without `flags`, per apply_markdown and
 * client_gravatar variant (0-3; +4 with the empty topic shown by its display name, level 334), and a read splices each reader's flags in.
 *
 * Retired through the cache signal: a change to users, streams or the organization empties
 * it; a change to messages drops those messages. A load that straddles either never
 * stores what it loaded.
 */
export class MessageJsonCache {
  private entries = new Map<number, Array<string | undefined>>();
  private chars = 0;
  /** Moved by every retirement: loads that straddle one are not kept. */
  private generation = 0;
  private stopListening: () => void;

  constructor(signal: CacheSignal = cacheSignal) {
    this.stopListening = signal.listen((r) => this.retire(r));
  }

  private retire(r: Retirement): void {
    if (WHOLE.some((s) => r.scopes.has(s))) {
      this.generation += 1;
      this.entries.clear();
      this.chars = 0;
    } else if (r.scopes.has('messages') && r.messageIds && r.messageIds.length > 0) {
      this.generation += 1;
      for (const id of r.messageIds) this.evict(id);
    }
  }

  /**
   * The JSON of each id (without flags), in order; ids the loader does not return (no
   * longer there) are skipped. `loader` presents the ones not held.
   */
  async load(ids: readonly number[], variant: number, loader: (missing: number[]) => Promise<Array<{ id: number }>>): Promise<Array<{ id: number; json: string }>> {
    const found = new Map<number, string>();
    const missing: number[] = [];
    for (const id of ids) {
      const json = this.entries.get(id)?.[variant];
      if (json !== undefined) found.set(id, json);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const generation = this.generation;
      const loaded = await loader(missing);
      const keep = generation === this.generation;
      for (const m of loaded) {
        const json = JSON.stringify(m);
        found.set(m.id, json);
        if (keep) this.store(m.id, variant, json);
      }
    }
    const out: Array<{ id: number; json: string }> = [];
    for (const id of ids) {
      const json = found.get(id);
      if (json !== undefined) out.push({ id, json });
    }
    return out;
  }

  /** Entries held, and their size in characters (for tests and the budget). */
  size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.chars };
  }

  close(): void {
    this.stopListening();
    this.entries.clear();
  }

  private evict(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    for (const json of entry) this.chars -= json?.length ?? 0;
    this.entries.delete(id);
  }

  private store(id: number, variant: number, json: string): void {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = [];
      this.entries.set(id, entry);
    }
    this.chars += json.length - (entry[variant]?.length ?? 0);
    entry[variant] = json;
    // Oldest inserted first out: recent messages are the ones read again.
    while (this.chars > MAX_CHARS && this.entries.size > 1) this.evict(this.entries.keys().next().value!);
  }
}
