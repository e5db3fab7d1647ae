/**
 * A change counter for the users and realm tables, which the authentication cache
 * compares against. Writers bump it at write time and again after their transaction
 * commits: a reader that slipped in between (PostgreSQL, another pool connection)
 * may have cached the pre-commit row under the first bump, and the second retires it.
 */
let version = 0;
const pending = new WeakSet<object>();

export function identityChanged(q: object): void {
  version += 1;
  pending.add(q);
}

export function identityVersion(): number {
  return version;
}

/** Called by transact() once COMMIT has returned. */
export function committed(q: object): void {
  if (pending.has(q)) version += 1;
}
