/**
 * How long archiving and purging rest between batches: `factor` times the time the batch
 * took, so that retention holds the writer at most 1 / (1 + factor) of the time, and
 * always at least one turn of the event loop, so that sends queued meanwhile go first.
 */
export const DEFAULT_PAUSE_FACTOR = 1;

export async function pauseAfterBatch(heldMs: number, factor = DEFAULT_PAUSE_FACTOR): Promise<void> {
  const ms = Math.max(0, heldMs * factor);
  await new Promise<void>((resolve) => (ms >= 1 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
