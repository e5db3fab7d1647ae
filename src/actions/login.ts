import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { authenticationFailed, rateLimited, realmDeactivated, userDeactivated } from '../errors.js';
import { hashPassword, needsRehash, randomString, verifyPassword } from '../lib/secrets.js';
import type { RateLimitDomain } from '../ratelimit/rules.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { transact } from './transaction.js';

/**
 * Sign-ins being checked now, per budget key, on this node. A failure is counted only once
 * the hash said so (a success never counts), so without these a burst of parallel guesses
 * would all pass the check before the first of them failed.
 */
const inFlight = new WeakMap<RateLimiter, Map<string, number>>();

function flights(limiter: RateLimiter): Map<string, number> {
  let m = inFlight.get(limiter);
  if (!m) inFlight.set(limiter, (m = new Map()));
  return m;
}

interface Budget { domain: RateLimitDomain; key: string }

/** Refuses a sign-in whose account or address has spent its failures (Zulip's rate_limit_auth). */
async function checkBudgets(limiter: RateLimiter, budgets: Budget[]): Promise<void> {
  const running = flights(limiter);
  for (const { domain, key } of budgets) {
    const r = await limiter.peek(domain, key);
    if (!r) continue;
    const pending = running.get(`${domain}\n${key}`) ?? 0;
    if (r.limited) throw rateLimited(r.secsToFreedom);
    // The failures still possible are being tried now: the answer is a second away.
    if (r.remaining - pending <= 0) throw rateLimited(1);
  }
}

/**
 * POST /fetch_api_key: email and password for the API key. Failures are limited per
 * account (Zulip's authenticate_by_username: 5 per 30 minutes) and per source address
 * (authenticate_by_ip), so that one password tried across many accounts is slowed too.
 * A hash of an older scheme or cost is replaced while the password is at hand.
 */
export async function fetchApiKey(ctx: AppContext, realm: RealmRow, username: string, password: string, ip: string): Promise<UserRow> {
  const { limiter } = ctx;
  const budgets: Budget[] = limiter.enabled
    ? [{ domain: 'authenticate_by_username', key: `${realm.id}:${username.trim().toLowerCase()}` }, { domain: 'authenticate_by_ip', key: ip }]
    : [];
  await checkBudgets(limiter, budgets);
  const running = flights(limiter);
  for (const b of budgets) running.set(`${b.domain}\n${b.key}`, (running.get(`${b.domain}\n${b.key}`) ?? 0) + 1);
  let user: UserRow | undefined;
  let ok: boolean;
  try {
    user = await users.findByEmail(ctx.store.db, realm.id, username.trim());
    // Hash even for unknown users so response time does not reveal which emails exist.
    ok = await verifyPassword(password, user?.password_hash ?? await dummyHash());
  } finally {
    for (const b of budgets) {
      const k = `${b.domain}\n${b.key}`;
      const n = (running.get(k) ?? 1) - 1;
      if (n > 0) running.set(k, n);
      else running.delete(k);
    }
  }
  if (!user || !ok || user.password_hash === null) {
    for (const b of budgets) await limiter.hit(b.domain, b.key);
    throw authenticationFailed();
  }
  if (realm.deactivated === 1) throw realmDeactivated();
  if (user.is_active !== 1) throw userDeactivated();
  if (needsRehash(user.password_hash)) await upgradePasswordHash(ctx, user, password);
  return user;
}

async function upgradePasswordHash(ctx: AppContext, user: UserRow, password: string): Promise<void> {
  const old = user.password_hash;
  const fresh = await hashPassword(password);
  await transact(ctx, async (tx) => {
    // Only if the password was not changed meanwhile.
    const current = await users.findById(tx.db, user.id);
    if (current?.password_hash === old) await users.update(tx.db, user.id, { password_hash: fresh });
  });
}

/** An Argon2id hash of nothing anyone knows, at today's cost: what unknown accounts are checked against. */
let dummy: { hash: Promise<string>; made: string } | undefined;
function dummyHash(): Promise<string> {
  // Made again if the cost changed (needsRehash says so), so its timing stays the real one's.
  if (!dummy || (dummy.made !== '' && needsRehash(dummy.made))) {
    const hash = hashPassword(randomString(32));
    const entry = { hash, made: '' };
    void hash.then((h) => { entry.made = h; }, () => { dummy = undefined; });
    dummy = entry;
  }
  return dummy.hash;
}
