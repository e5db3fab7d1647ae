/**
 * Presence from feature level 178 (the modern per-user format for slim_presence, the
 * legacy format's single `website` client), 263 (last_update_id: only what changed since
 * the client's last answer) and 288 (history_limit_days), and at 122 as the spec has it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';

const DAY = 24 * 3600;
const apps: TestApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function org(featureLevel: number) {
  const t = await testApp({ featureLevel });
  apps.push(t);
  const users = await t.createUsers({ alice: { name: 'Alice' }, bob: { name: 'Bob' }, carol: { name: 'Carol' } });
  const report = (as: TestUser, params: Record<string, unknown> = {}) =>
    t.api('POST', '/api/v1/users/me/presence', { as, params: { status: 'active', ...params } });
  const register = (as: TestUser, params: Record<string, unknown> = {}) =>
    t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['presence'], ...params } });
  return { t, ...users, report, register };
}

let at277: Awaited<ReturnType<typeof org>>;
before(async () => { at277 = await org(277); });

test('277: slim answers the modern format; without slim the legacy one, its client named website', async () => {
  const { alice, bob, report } = at277;
  await report(bob, { status: 'idle' });
  const r = await report(alice, { slim_presence: true });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const mine = r.body.presences[String(alice.id)];
  assert.deepEqual(Object.keys(mine).sort(), ['active_timestamp', 'idle_timestamp']);
  assert.equal(mine.active_timestamp, mine.idle_timestamp);
  // Bob never was active: his last activity is unknown (0), his last connection known.
  assert.equal(r.body.presences[String(bob.id)].active_timestamp, 0);
  assert.ok(r.body.presences[String(bob.id)].idle_timestamp > 0);
  assert.equal(typeof r.body.presence_last_update_id, 'number');

  const legacy = await report(alice, { client: 'ZulipTerminal' });
  const entry = legacy.body.presences[alice.email];
  assert.deepEqual(Object.keys(entry).sort(), ['aggregated', 'website']);
  assert.deepEqual(entry.aggregated, { client: 'website', status: 'active', timestamp: entry.website.timestamp });
  assert.equal(entry.website.pushable, false);
  assert.equal(legacy.body.presences[bob.email].aggregated.status, 'idle');
});

test('277: last_update_id answers only the users written since, and the number to send next', async () => {
  const { alice, bob, carol, report } = at277;
  const first = await report(alice, { last_update_id: -1 });
  // last_update_id implies slim: keyed by id, modern.
  assert.ok(first.body.presences[String(alice.id)].active_timestamp > 0);
  const n = first.body.presence_last_update_id as number;
  assert.ok(n > 0);
  // Alice's own report is a write: she is in her next answer, and only she is.
  const again = await report(alice, { last_update_id: n });
  assert.deepEqual(Object.keys(again.body.presences), [String(alice.id)]);
  assert.equal(again.body.presence_last_update_id, n + 1);
  await report(carol, { status: 'idle' });
  await report(bob);
  const later = await report(alice, { last_update_id: n + 1, ping_only: false });
  assert.deepEqual(Object.keys(later.body.presences).sort(), [String(alice.id), String(bob.id), String(carol.id)].sort());
  assert.equal(later.body.presence_last_update_id, n + 4);
  // ping_only: neither key.
  assert.deepEqual(await report(alice, { last_update_id: n, ping_only: true }).then((r) => r.body), { result: 'success', msg: '' });
  // GET /realm/presence: everyone, with the number.
  const realm = await at277.t.api('GET', '/api/v1/realm/presence', { as: bob, params: { slim_presence: true } });
  assert.equal(realm.body.presence_last_update_id, n + 5);
  assert.ok(realm.body.presences[String(carol.id)].idle_timestamp > 0);
});

test('277: register gives presence_last_update_id; polling from it answers what changed since', async () => {
  const { alice, bob, report, register } = at277;
  const reg = await register(alice, { slim_presence: true });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const n = reg.body.presence_last_update_id as number;
  assert.ok(n > 0);
  assert.ok(reg.body.presences[String(bob.id)].active_timestamp > 0);
  await report(bob);
  const r = await report(alice, { last_update_id: n });
  assert.deepEqual(Object.keys(r.body.presences).sort(), [String(alice.id), String(bob.id)].sort());
  assert.equal(r.body.presence_last_update_id, n + 2);
});

test('288: history_limit_days bounds the first answer (0: none); a client with a number gets every change', async () => {
  const at288 = await org(288);
  const { t, alice, bob, carol, report, register } = at288;
  for (const u of [alice, bob, carol]) await report(u);
  const now = Math.floor(Date.now() / 1000);
  await t.app.ctx.store.db.updateTable('user_presence').set({ last_active_time: now - 20 * DAY, last_connected_time: now - 20 * DAY }).where('user_id', '=', carol.id).execute();
  // A user change reloads the organization's presence (the hand-made write above is seen).
  await t.createUser({ name: 'Dora' });
  const keys = (r: { body: { presences: object } }) => Object.keys(r.body.presences).sort();
  assert.deepEqual(keys(await report(alice, { last_update_id: -1 })), [String(alice.id), String(bob.id)].sort(), 'two weeks by default');
  assert.deepEqual(keys(await report(alice, { last_update_id: -1, history_limit_days: 30 })), [String(alice.id), String(bob.id), String(carol.id)].sort());
  assert.deepEqual(keys(await report(alice, { last_update_id: 0, history_limit_days: 30 })), [String(alice.id), String(bob.id), String(carol.id)].sort());
  const none = await report(alice, { last_update_id: -1, history_limit_days: 0 });
  assert.deepEqual(none.body.presences, {});
  assert.equal(none.body.presence_last_update_id, -1);
  assert.equal((await report(alice, { last_update_id: 7, history_limit_days: 0 })).body.presence_last_update_id, 7);
  assert.deepEqual(keys(await register(alice, { slim_presence: true })), [String(alice.id), String(bob.id)].sort());
  assert.deepEqual(keys(await register(alice, { slim_presence: true, presence_history_limit_days: 30 })), [String(alice.id), String(bob.id), String(carol.id)].sort());
  assert.deepEqual(keys(await register(alice, { slim_presence: true, presence_history_limit_days: 0 })), []);
  const bad = await report(alice, { last_update_id: 'soon' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.msg, 'last_update_id is not an integer');
  // At 277 the window is always two weeks.
  assert.equal((await at277.report(at277.alice, { last_update_id: -1, history_limit_days: 0 })).body.presences[String(at277.alice.id)].idle_timestamp > 0, true);
});

test('178: slim is modern, without presence_last_update_id; 122: the spec\'s format, last_update_id and history_limit_days read and ignored', async () => {
  const at178 = await org(178);
  await at178.report(at178.bob);
  const modern = await at178.report(at178.alice, { slim_presence: true, last_update_id: 5 });
  assert.deepEqual(Object.keys(modern.body.presences[String(at178.bob.id)]).sort(), ['active_timestamp', 'idle_timestamp']);
  assert.equal('presence_last_update_id' in modern.body, false);
  assert.equal('presence_last_update_id' in (await at178.register(at178.alice, { slim_presence: true })).body, false);

  const at122 = await org(122);
  await at122.report(at122.bob, { client: 'ZulipTerminal' });
  const r = await at122.report(at122.alice, { last_update_id: 5, history_limit_days: 0 });
  assert.deepEqual(Object.keys(r.body).sort(), ['msg', 'presences', 'result', 'server_timestamp']);
  // Keyed by email (last_update_id implies nothing here), every user, the client by its name.
  assert.deepEqual(Object.keys(r.body.presences[at122.bob.email]).sort(), ['ZulipTerminal', 'aggregated']);
  const slim = await at122.report(at122.alice, { slim_presence: true });
  assert.ok(slim.body.presences[String(at122.bob.id)].aggregated);
  const reg = await at122.register(at122.alice, { slim_presence: true, presence_history_limit_days: 0 });
  assert.equal('presence_last_update_id' in reg.body, false);
  assert.ok(reg.body.presences[String(at122.bob.id)].aggregated);
});
