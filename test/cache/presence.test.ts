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
let written = 0;
/** A row as a write makes it: the next number, unless told. */
const row = (userId: number, active: number, connected = active, settings = '{}', id = ++written): PresenceAnswerRow =>
  ({ user_id: userId, client: 'website', last_active_time: active, last_connected_time: connected, last_update_id: id, email: `u${userId}@example.com`, settings });

function setup(rows: PresenceAnswerRow[]) {
  const signal = new CacheSignal();
  const cache = new PresenceCache(signal);
  let loads = 0;
  const load = async () => {
    loads++;
    return { rows: rows.map((r) => ({ ...r })), maxId: Math.max(0, ...rows.map((r) => r.last_update_id)) };
  };
  const answer = async (now: number, slim = false, since = 0, level = 122) =>
    JSON.parse(presencesFromRows(cache, (await cache.rows(1, load)).rows, { slim, level }, now, since)) as Record<string, any>;
  const since = async (after: number) => {
    const s = await cache.since(1, after, load);
    return { ids: s.rows.map((r) => r.user_id), complete: s.complete };
  };
  return { signal, cache, answer, since, loads: () => loads };
}

test('the rows are read once; a patch shows at once and an older one is ignored', async () => {
  const { cache, answer, loads } = setup([row(1, T), row(2, T - 30)]);
  assert.deepEqual(Object.keys(await answer(T)).sort(), ['u1@example.com', 'u2@example.com']);
  const late = row(2, T + 1);
  cache.patch(1, row(2, T + 5));
  cache.patch(1, late); // arrived late: older than what is held
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

test('from level 178: slim answers the modern format, the legacy one names the client website and needs no clock', async () => {
  const { answer } = setup([row(1, T, T + 100), row(2, T, T + 60)]);
  assert.deepEqual(await answer(T + 1000, true, 0, 178), {
    1: { active_timestamp: T, idle_timestamp: T + 100 },
    2: { active_timestamp: T, idle_timestamp: T + 60 },
  });
  const legacy = await answer(T + 1000, false, 0, 178);
  // Active when last activity is within 70 s of the last connection (Zulip's legacy rule).
  assert.deepEqual(legacy['u1@example.com'], { website: { client: 'website', status: 'idle', timestamp: T + 100, pushable: false }, aggregated: { client: 'website', status: 'idle', timestamp: T + 100 } });
  assert.deepEqual(legacy['u2@example.com'].aggregated, { client: 'website', status: 'active', timestamp: T });
  // The same rows at 122 still follow the clock.
  assert.equal((await answer(T + 10, false, 0, 122))['u1@example.com'].aggregated.status, 'active');
});

test('since: only rows written after the number, and the number up to which every write is held', async () => {
  written = 100;
  const { cache, since } = setup([row(1, T), row(2, T), row(3, T)]); // 101..103
  // (The cache is told of writes once it holds the organization.)
  assert.deepEqual(await since(101), { ids: [2, 3], complete: 103 });
  cache.patch(1, row(1, T + 1)); // 104
  assert.deepEqual(await since(103), { ids: [1], complete: 104 });
  // 106 arrives before 105 (another node's write on its way): held, but not vouched for.
  const r105 = row(2, T + 2);
  cache.patch(1, row(3, T + 3)); // 106
  assert.deepEqual(await since(104), { ids: [3], complete: 104 });
  cache.patch(1, r105);
  assert.deepEqual(await since(104), { ids: [2, 3], complete: 106 });
  // A write the answer does not list (a bot's, say) still counts.
  cache.patch(1, row(9, T + 4), false); // 107
  assert.deepEqual(await since(106), { ids: [], complete: 107 });
  // A user written again appears once, at their newest.
  cache.patch(1, row(1, T + 5)); // 108
  cache.patch(1, row(1, T + 6)); // 109
  assert.deepEqual(await since(100), { ids: [2, 3, 1], complete: 109 });
});

test('since: the log stays bounded by the rows however many writes come', async () => {
  written = 0;
  const { cache, since } = setup([row(1, T), row(2, T)]);
  await since(0);
  for (let i = 0; i < 1000; i++) cache.patch(1, row(1 + (i % 2), T + i));
  assert.deepEqual(await since(written - 1), { ids: [2], complete: written });
  assert.deepEqual((await since(0)).ids.sort(), [1, 2]);
});
