import type { Q } from '../store/rows.js';
import { sessions } from '../store/repos/sessions.js';
import { users } from '../store/repos/users.js';
import { realms } from '../store/repos/realms.js';
import { cachesOf, type SessionLogin } from '../cache/index.js';

/**
 * The session behind an id hash with its user and realm, as every /json request needs it:
 * from the cache while the user and realm are unchanged (deactivation retires it; a sign-out
 * drops the entry, and other processes hear of it through the cache epoch). Expiry and the
 * account's state are the caller's to check. Unknown hashes are not cached.
 */
export async function sessionLogin(db: Q, idHash: string): Promise<SessionLogin | undefined> {
  const cache = cachesOf(db).sessions;
  const hit = cache.get(idHash);
  if (hit) return hit;
  const version = cache.version();
  const session = await sessions.findByIdHash(db, idHash);
  if (!session) return undefined;
  const [user, realm] = await Promise.all([users.findById(db, session.user_id), realms.findById(db, session.realm_id)]);
  if (!user || !realm) return undefined;
  const login = { session, user, realm };
  cache.set(idHash, login, version);
  return login;
}
