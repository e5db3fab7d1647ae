/**
 * Which kinds of rows this process has changed, told to whoever listens (the cache layer
 * retires what it holds of them). A write inside a transaction is told once its
 * transaction has committed (transact() calls committed()), so that no reader on another
 * connection can cache the pre-commit row after being told; one outside a transaction is
 * told as soon as it has run. Writes by other processes arrive through the store's epoch
 * (epoch.ts) instead.
 */
export type RowKind = 'users' | 'realms' | 'streams' | 'subscriptions' | 'alert_words' | 'muted_users' | 'user_groups' | 'user_status';

/**
 * Every kind the cache epoch's triggers watch (migrations 012 and 017). Groups and statuses
 * have no trigger: what caches them depends on `users` too, which every writer of them
 * outside the server (the CLI's role changes, imports) also writes.
 */
export const EPOCH_ROW_KINDS: readonly RowKind[] = ['users', 'realms', 'streams', 'subscriptions', 'alert_words', 'muted_users'];

type Listener = (kinds: ReadonlySet<RowKind>) => void;
const listeners = new Set<Listener>();
const pending = new WeakMap<object, Set<RowKind>>();

function tell(kinds: ReadonlySet<RowKind>): void {
  for (const l of listeners) l(kinds);
}

/** Called by a repo after it has written rows of `kind` through `q`. */
export function rowsWritten(q: { isTransaction: boolean }, kind: RowKind): void {
  if (!q.isTransaction) {
    tell(new Set([kind]));
    return;
  }
  let kinds = pending.get(q);
  if (!kinds) pending.set(q, (kinds = new Set()));
  kinds.add(kind);
}

/** Called by transact() once COMMIT has returned; a rolled-back transaction's writes are never told. */
export function committed(trx: object): void {
  const kinds = pending.get(trx);
  if (!kinds) return;
  pending.delete(trx);
  tell(kinds);
}

export function onRowsWritten(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
