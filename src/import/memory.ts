/**
 * What keeps an import's process within its memory bound (issue 33: under 300 MB whatever
 * the export's size), for `parley import` and its benchmark alike.
 *
 * An import allocates fast and keeps little: each chunk of messages is parsed, rendered,
 * stored and dropped, and what survives a collection stays near 60 MB. V8's default lets the
 * heap grow to several times that between collections when allocation is fast (300 MB at
 * 30,000 messages). Capping the heap instead would crash an import whose id maps outgrow
 * the cap, so the heap is told to grow only a quarter past what survives: collections come
 * sooner and the heap follows what is live. V8 reads this flag at every collection; it is
 * process-wide, so only a command that does nothing else sets it, never the server.
 *
 * Its rows land on a few index pages at a time, so a 16 MiB SQLite page cache per connection
 * is enough where the server keeps 64: no slower, as far as measured (docs/performance.md,
 * import). PARLEY_SQLITE_CACHE_MIB still wins when set.
 */
import v8 from 'node:v8';
import type { ConfigOverrides } from '../config.js';

export const IMPORT_HEAP_GROWING_PERCENT = 25;
/** glibc's malloc arenas for an import's process (MALLOC_ARENA_MAX), set by bin/parley.mjs, which starts it. */
export const IMPORT_MALLOC_ARENAS = 2;
/**
 * V8's young generation per semi-space, in MiB (`--max-semi-space-size`, 16 by default), for
 * every thread of an import's process, given by bin/parley.mjs too: V8 reads it only at start.
 * Most of what an import allocates dies young, so a small nursery is collected more often at
 * no visible cost, and the peak falls by about 30 MB (docs/performance.md, import).
 */
export const IMPORT_SEMI_SPACE_MIB = 2;

/** The node options bin/parley.mjs starts an import with, beside the ones it was given (whose own semi-space setting wins). */
export function importNodeOptions(execArgv: readonly string[]): string[] {
  return execArgv.some((a) => a.startsWith('--max-semi-space-size')) ? [...execArgv] : [...execArgv, `--max-semi-space-size=${IMPORT_SEMI_SPACE_MIB}`];
}
export const IMPORT_SQLITE_CACHE_MIB = 16;

/** Applies the heap setting to this process, and answers the store settings to open the import's context with. */
export function boundImportMemory(): ConfigOverrides {
  v8.setFlagsFromString(`--heap-growing-percent=${IMPORT_HEAP_GROWING_PERCENT}`);
  return process.env.PARLEY_SQLITE_CACHE_MIB ? {} : { sqliteCacheMib: IMPORT_SQLITE_CACHE_MIB };
}
