/**
 * How archiving and purging share the writer with sends. An archiving batch runs on the
 * writer thread as one script (Store.script), when no send is queued, so a send waits for
 * it only when it arrives during one: batches are sized to hold the writer TARGET_HOLD_MS
 * (up to Zulip's 1000 messages; a stream of a thousand subscribers has a thousand recipient
 * rows per message, a private message two), and after each one retention rests `factor`
 * times as long as it held the writer (4: at most a fifth of the writer), and always at
 * least one turn of the event loop. At 500 paced sends a second on a slow day, 2 ms holds
 * kept send p99 within its baselines' spread (13.6 against 9.9 and 12 ms) where 5 ms holds
 * did not (17.7 against 9 and 40; 21.6 against 10 before scripts); a rest of one hold
 * (factor 1) doubled p99 (docs/performance.md, retention).
 */
export const DEFAULT_PAUSE_FACTOR = 4;
export const TARGET_HOLD_MS = 2;
// Small: the first batch of a stream of thousands of subscribers must not be the long one.
const FIRST_SIZE = 10;

export async function pauseAfterBatch(heldMs: number, factor = DEFAULT_PAUSE_FACTOR): Promise<void> {
  const ms = Math.max(0, heldMs * factor);
  await new Promise<void>((resolve) => (ms >= 1 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

/** Batch sizes: fixed when the caller names one (tests), else adapted to the time the last batch took. */
export class BatchSizer {
  private size: number;
  constructor(private readonly max: number, private readonly fixed: boolean, private readonly targetMs = TARGET_HOLD_MS) {
    this.size = fixed ? max : Math.min(FIRST_SIZE, max);
  }

  /**
   * A power of two (or the maximum): each batch size is a statement text of its own on the
   * writer's connection (its IN-lists), and a few sizes keep its statement cache from
   * filling and starting again.
   */
  get next(): number {
    if (this.fixed) return this.size;
    return Math.min(this.max, 2 ** Math.round(Math.log2(this.size)));
  }

  /** A batch of `moved` messages held the writer `heldMs`. */
  record(moved: number, heldMs: number): void {
    if (this.fixed || moved === 0) return;
    const perMessage = Math.max(heldMs, 0.1) / moved;
    // Halfway to the estimate each time: one slow batch (a checkpoint, a pause) does not collapse the size.
    const wanted = this.targetMs / perMessage;
    this.size = Math.max(1, Math.min(this.max, Math.round((this.size + wanted) / 2)));
  }
}
