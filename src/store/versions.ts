/**
 * Change counters that in-process caches compare against: `identity` for the users and
 * realm tables (the authentication cache), `membership` for streams, subscriptions and
 * alert words (what a send reads). Writers bump a counter at write time and again after
 * their transaction commits: a reader that slipped in between (PostgreSQL, another pool
 * connection) may have cached the pre-commit row under the first bump, and the second
 * retires it. Writes by other processes move both, through the store's epoch (epoch.ts).
 */
let identity = 0;
let membership = 0;
const identityPending = new WeakSet<object>();
const membershipPending = new WeakSet<object>();

export function identityChanged(q: object): void {
  identity += 1;
  identityPending.add(q);
}

export function identityVersion(): number {
  return identity;
}

export function membershipChanged(q?: object): void {
  membership += 1;
  if (q) membershipPending.add(q);
}

export function membershipVersion(): number {
  return membership;
}

/** Called by transact() once COMMIT has returned. */
export function committed(q: object): void {
  if (identityPending.has(q)) identity += 1;
  if (membershipPending.has(q)) membership += 1;
}

/** Another process changed the watched tables: every cached row may be stale. */
export function changedElsewhere(): void {
  identity += 1;
  membership += 1;
}
