import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { authenticationFailed, rateLimited, realmDeactivated, userDeactivated } from '../errors.js';
import { verifyPassword } from '../lib/secrets.js';

/**
 * Zulip's authenticate_by_username limit: 5 failures per 30 minutes per username.
 * In memory per process; a restart forgets it, which only helps a legitimate user.
 */
const WINDOW_MS = 30 * 60 * 1000;
const MAX_FAILURES = 5;
const failures = new Map<string, number[]>();

function recentFailures(key: string, now: number): number[] {
  const list = (failures.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
  if (list.length === 0) failures.delete(key);
  else failures.set(key, list);
  return list;
}

export function resetLoginLimits(): void {
  failures.clear();
}

export async function fetchApiKey(ctx: AppContext, realm: RealmRow, username: string, password: string): Promise<UserRow> {
  const key = `${realm.id}:${username.trim().toLowerCase()}`;
  const now = Date.now();
  const recent = recentFailures(key, now);
  if (recent.length >= MAX_FAILURES) {
    const retryAfter = Math.ceil((recent[0]! + WINDOW_MS - now) / 1000);
    throw rateLimited(retryAfter);
  }
  const user = await users.findByEmail(ctx.store.db, realm.id, username.trim());
  // Hash even for unknown users so response time does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok || user.password_hash === null) {
    recent.push(now);
    failures.set(key, recent);
    throw authenticationFailed();
  }
  if (realm.deactivated === 1) throw realmDeactivated();
  if (user.is_active !== 1) throw userDeactivated();
  return user;
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
