import type { RowKind } from '../store/changes.js';

/** What a cached value can depend on: kinds of rows, and messages (sent, edited, moved, deleted). */
export type CacheScope = RowKind | 'messages';

export interface Retirement {
  scopes: ReadonlySet<CacheScope>;
  /** With 'messages': the messages that changed, when known. */
  messageIds?: readonly number[];
}

/**
 * The one way anything cached in this process is retired. Each scope has a counter; a
 * cached value remembers the counters of its scopes as they were before it was loaded
 * and is used only while they are unchanged. Three sources move the counters, all wired
 * in one place (cache/retire.ts): this process's own writes after they commit, the event
 * bus (every node's events), and the store's epoch (writes by the CLI or a hand-run
 * statement).
 *
 * One per process: several servers in one process (the tests) retire each other's
 * entries now and then, which costs a reload and is never wrong.
 */
export class CacheSignal {
  private counters = new Map<CacheScope, number>();
  private listeners = new Set<(r: Retirement) => void>();

  /** A number that changes whenever any of `scopes` is retired. */
  version(scopes: readonly CacheScope[]): number {
    let v = 0;
    for (const s of scopes) v += this.counters.get(s) ?? 0;
    return v;
  }

  retire(r: Retirement): void {
    if (r.scopes.size === 0) return;
    for (const s of r.scopes) this.counters.set(s, (this.counters.get(s) ?? 0) + 1);
    for (const l of this.listeners) l(r);
  }

  /** For caches that drop entries by key (messages by id) rather than by version. */
  listen(listener: (r: Retirement) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const cacheSignal = new CacheSignal();
