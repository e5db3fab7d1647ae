/**
 * What the store's send path tells whoever watches it (the metrics, src/metrics/). It is
 * called on every batch, so the default does nothing, and a watcher must be cheap.
 */
export interface WriteObserver {
  /** A group-commit batch was stored: how many sends it held, and how many of them were stored. */
  batch(size: number, stored: number): void;
  /** One send waited this long, in seconds, from joining the queue to its batch's commit. */
  sendWait(seconds: number): void;
  /** A transaction waited this long, in seconds, for the SQLite writer another one held. */
  lockWait(seconds: number): void;
}

export const NO_WRITE_OBSERVER: WriteObserver = { batch: () => {}, sendWait: () => {}, lockWait: () => {} };
