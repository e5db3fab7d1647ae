/**
 * Bulk actions that may outlast a request (POST /streams/{id}/delete_topic, POST
 * /mark_all_as_read) work in batches, each committed on its own, and stop starting new
 * ones once the time budget is spent, as Zulip does from feature levels 147/153: progress
 * is kept, and the client repeats the request until the answer says `complete` (211).
 * Zulip's budget is 50 seconds; the batch sizes are its own (RETENTION_STREAM_MESSAGE_BATCH_SIZE
 * for a topic, 2000 unread rows for mark_all_as_read). Tests may change these values.
 */
export const batchBudget = {
  seconds: 50,
  topicDeleteBatch: 100,
  markAllReadBatch: 2000,
  /**
   * PostgreSQL's batch is larger: a batch locks only the user's own rows, not the one writer
   * SQLite has (whose sends wait behind it), and 100,000 rows took 535 ms in batches of 2,000
   * against 425 ms in batches of 10,000 (docs/performance.md, mark-read).
   */
  markAllReadBatchPostgres: 10000,
  /** Milliseconds, monotonic. */
  clock: (): number => performance.now(),
};

/** Whether the budget that started at `startMs` is spent: checked before each batch. */
export const budgetSpent = (startMs: number): boolean => batchBudget.clock() >= startMs + batchBudget.seconds * 1000;

/** The answer of a batched action: `complete` from feature level 211, nothing before it. */
export const completeAnswer = (featureLevel: number, complete: boolean): { complete?: boolean } =>
  (featureLevel >= 211 ? { complete } : {});
