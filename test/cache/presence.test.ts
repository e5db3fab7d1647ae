/**
 * The presence answer's cache (src/cache/presence.ts): an organization's rows are read
 * once, then kept current by patches from every write, whichever order they come in; each
 * user's serialised part (src/reads/presence.ts) follows their row and the clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CacheSignal } from '../../src/cache/signal.js';
import { PresenceCache, type PresenceAnswerRow } from '../../src/cache/presence.js';
import { presencesFromRows } from '../../src/reads/presence.js';

const T = 1_800_000_000;
const row = (userId: number, active: number, connected = active, settings = '{}'): PresenceAnswerRow =>
  ({ user_id: userId, client: 'website', last_active_time: active, last_connected_time: connected, email: `u${userId}@example.com`, settings });

function setup(rows: PresenceAnswerRow[]) {
  const signal = new CacheSignal();
  const cache = new PresenceCache(signal);
  let loads = 0;
  const load = async () => {
    loads++;
    return rows.map((r) => ({ ...r }));
  };
  const answer = async (now: number, slim = false, since = 0) =>
    JSON.parse(presencesFromRows(cache, await cache.rows(1, load), slim, now, since)) as Record<string, any>;
  return { signal, cache, answer, loads: () => loads };
}

test('the rows are read once; a patch shows at once and an older one is ignored', async () => {
  const { cache, answer, loads } = setup([row(1, T), row(2, T - 30)]);
  assert.deepEqual(Object.keys(await answer(T)).sort(), ['u1@example.com', 'u2@example.com']);
  cache.patch(1, row(2, T + 5));
  cache.patch(1, row(2, T + 1)); // arrived late: older than what is held
  cache.patch(1, row(3, T + 5));
  const a = await answer(T + 5);
  assert.equal(a['u2@example.com'].aggregated.timestamp, T + 5);
  assert.equal(a['u3@example.com'].website.status, 'active');
  assert.equal(loads(), 1);
});

test('a user shows idle two minutes after their last activity, with nothing written', async () => {
  const { answer } = setup([row(1, T, T + 100)]);
  const fresh = (await answer(T + 10))['u1@example.com'];
  assert.deepEqual(fresh.aggregated, { client: 'website', status: 'active', timestamp: T });
  const later = (await answer(T + 121))['u1@example.com'];
  assert.deepEqual(later.aggregated, { client: 'website', status: 'idle', timestamp: T + 100 });
  assert.equal(later.website.status, 'idle');
});

test('slim keys by user id; users hiding their presence and rows before `since` are left out', async () => {
  const { answer } = setup([row(1, T), row(2, T, T, JSON.stringify({ presence_enabled: false })), row(3, T - 1000)]);
  assert.deepEqual(Object.keys(await answer(T, true, T - 500)), ['1']);
});

test('a retired user scope reads the rows again; a patch made during that read is kept', async () => {
  const rows = [row(1, T)];
  const { signal, cache, answer, loads } = setup(rows);
  await answer(T);
  signal.retire({ scopes: new Set(['users']) });
  rows[0] = row(1, T + 1);
  const reading = answer(T + 2);
  cache.patch(1, row(1, T + 2)); // committed after the read began
  assert.equal((await reading)['u1@example.com'].aggregated.timestamp, T + 2);
  assert.equal(loads(), 2);
  signal.retire({ scopes: new Set(['streams']) });
  await answer(T + 2);
  assert.equal(loads(), 2, 'other scopes leave it alone');
});
