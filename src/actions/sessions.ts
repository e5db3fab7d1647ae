import type { AppContext } from '../context.js';
import type { RealmRow, SessionRow, UserRow } from '../store/rows.js';
import { sessions } from '../store/repos/sessions.js';
import { cachesOf } from '../cache/index.js';
import { writeAlone } from './transaction.js';
import { newSessionSecrets, sessionIdHash } from '../lib/session-ids.js';
import { nowSeconds } from '../lib/time.js';

/** last_seen is a hint for people and a purge, not an audit trail: written at most this often per session. */
const LAST_SEEN_GRANULARITY_SECS = 15 * 60;

export interface NewSession { id: string; csrfToken: string; lifetimeSecs: number }

/** Signs `user` in on the web: a session row (its id only as a hash) and the secrets for the cookies. */
export async function createSession(ctx: AppContext, realm: RealmRow, user: UserRow): Promise<NewSession> {
  const { id, csrfToken } = newSessionSecrets();
  const now = nowSeconds();
  const lifetimeSecs = ctx.config.sessionLifetimeSecs;
  // Sessions that ran out are removed as new ones are made: no timer to own.
  await writeAlone(ctx, (tx) => sessions.deleteExpired(tx.db, now));
  await writeAlone(ctx, (tx) => sessions.insert(tx.db, {
    id_hash: sessionIdHash(id), user_id: user.id, realm_id: realm.id, csrf_token: csrfToken, created: now, expires: now + lifetimeSecs, last_seen: now,
  }));
  return { id, csrfToken, lifetimeSecs };
}

/** Ends one session (sign-out, expiry, a deactivated account). */
export async function deleteSession(ctx: AppContext, idHash: string): Promise<void> {
  await writeAlone(ctx, (tx) => sessions.deleteByIdHash(tx.db, idHash));
  cachesOf(ctx.store.db).sessions.delete(idHash);
}

/** Records use of a session when its last record is older than the granularity (`session` is updated in place: the cached row). */
export async function touchSession(ctx: AppContext, session: SessionRow): Promise<void> {
  const now = nowSeconds();
  if (now - session.last_seen < LAST_SEEN_GRANULARITY_SECS) return;
  session.last_seen = now;
  await writeAlone(ctx, (tx) => sessions.updateLastSeen(tx.db, session.id_hash, now));
}
