/**
 * Seeds the organization through the REST API of a server that is already running (the
 * --url mode): the owner's key from POST /fetch_api_key, users from POST /users, streams and
 * subscriptions from POST /users/me/subscriptions with principals, each user's API key from
 * POST /fetch_api_key (every seeded user needs a password for that), and the history sent
 * as its senders.
 */
import { Pool } from 'undici';
import { emailOf, history, membership, nameOf, streamNameOf, type SeedProgress, type Shape, type SimUser } from './shape.js';

async function api(pool: Pool, method: string, path: string, auth: string | undefined, body: Record<string, string | number>): Promise<any> {
  const res = await pool.request({
    method: method as 'POST', path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body: new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString(),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

/** Runs `fn` over 0..n-1, `width` at a time. */
async function each(n: number, width: number, fn: (i: number) => Promise<void>, tick: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      await fn(i);
      if (++done % 10 === 0 || done === n) tick(done);
    }
  }));
}

export async function seedThroughApi(base: string, admin: { email: string; password: string }, shape: Shape, progress: (p: SeedProgress) => void): Promise<SimUser[]> {
  const pool = new Pool(base, { connections: 8 });
  const owner = await api(pool, 'POST', '/api/v1/fetch_api_key', undefined, { username: admin.email, password: admin.password });
  const ownerAuth = basic(owner.email, owner.api_key);
  const passwordOf = (i: number) => `sim-password-${shape.prefix}-${i}`;
  const ids: number[] = [];
  await each(shape.users, 4, async (i) => {
    ids[i] = (await api(pool, 'POST', '/api/v1/users', ownerAuth, { email: emailOf(shape, i), password: passwordOf(i), full_name: nameOf(i) })).user_id;
  }, (done) => progress({ stage: 'users', done, total: shape.users }));
  const members = membership(shape);
  for (let s = 0; s < shape.streams; s++) {
    await api(pool, 'POST', '/api/v1/users/me/subscriptions', ownerAuth, {
      subscriptions: JSON.stringify([{ name: streamNameOf(s) }]), principals: JSON.stringify(members[s]!.map((i) => ids[i])),
    });
    progress({ stage: 'streams', done: s + 1, total: shape.streams });
  }
  const users: SimUser[] = [];
  await each(shape.users, 4, async (i) => {
    const r = await api(pool, 'POST', '/api/v1/fetch_api_key', undefined, { username: emailOf(shape, i), password: passwordOf(i) });
    users[i] = { email: r.email, apiKey: r.api_key, ...(i < shape.loginUsers ? { password: passwordOf(i) } : {}) };
  }, (done) => progress({ stage: 'api keys', done, total: shape.users }));
  const all = [...history(shape, members)];
  await each(all.length, 8, async (k) => {
    const [s, sender, topic, content] = all[k]!;
    await api(pool, 'POST', '/api/v1/messages', basic(users[sender]!.email, users[sender]!.apiKey), { type: 'stream', to: streamNameOf(s), topic, content });
  }, (done) => progress({ stage: 'history', done, total: all.length }));
  await pool.close();
  return users;
}
