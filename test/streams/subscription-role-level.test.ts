import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { setRealmSettings } from '../helpers/streams.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { Role } from '../../src/lib/roles.js';

// Feature level 133: subscription objects of GET /users/me/subscriptions and register lose
// `role` (events keep it: their format never follows the level), and wildcard_mention_policy
// loses its stream administrators option (4). At 122 (the spec) both stay.
let old: TestApp, now: TestApp;
let oldAdmin: TestUser, nowAdmin: TestUser;

before(async () => {
  old = await testApp({ featureLevel: 122 });
  now = await testApp({ featureLevel: 277 });
  oldAdmin = await old.createUser({ name: 'Old Admin', role: Role.ADMINISTRATOR });
  nowAdmin = await now.createUser({ name: 'Now Admin', role: Role.ADMINISTRATOR });
  for (const [t, u] of [[old, oldAdmin], [now, nowAdmin]] as const) {
    assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: u, params: { subscriptions: [{ name: 'kept' }, { name: 'left' }] } }));
    assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: u, params: { subscriptions: ['left'] } }));
  }
});
after(async () => { await old.close(); await now.close(); });

const REGISTER = { include_subscribers: true, fetch_event_types: ['subscription'], event_types: ['subscription'], client_capabilities: { notification_settings_null: true } };

test('GET /users/me/subscriptions and register: role at 122, none from 133', async () => {
  const oldSubs = assertOk(await old.api('GET', '/api/v1/users/me/subscriptions', { as: oldAdmin })).subscriptions;
  assert.ok(oldSubs.length > 0 && oldSubs.every((s: any) => s.role === 50));
  const nowSubs = assertOk(await now.api('GET', '/api/v1/users/me/subscriptions', { as: nowAdmin })).subscriptions;
  assert.ok(nowSubs.length > 0 && nowSubs.every((s: any) => !('role' in s)));
  const oldReg = assertOk(await old.api('POST', '/api/v1/register', { as: oldAdmin, params: REGISTER }));
  assert.ok([...oldReg.subscriptions, ...oldReg.unsubscribed].every((s: any) => s.role === 50));
  assert.equal(oldReg.unsubscribed.length, 1);
  const nowReg = assertOk(await now.api('POST', '/api/v1/register', { as: nowAdmin, params: REGISTER }));
  assert.equal(nowReg.unsubscribed.length, 1);
  assert.ok([...nowReg.subscriptions, ...nowReg.unsubscribed].every((s: any) => !('role' in s)));
});

test('at 277 the subscription add event keeps role; applied, it gives the fresh register', async () => {
  const reg = assertOk(await now.api('POST', '/api/v1/register', { as: nowAdmin, params: REGISTER }));
  assertOk(await now.api('POST', '/api/v1/users/me/subscriptions', { as: nowAdmin, params: { subscriptions: [{ name: 'joined' }, { name: 'left' }] } }));
  assertOk(await now.api('DELETE', '/api/v1/users/me/subscriptions', { as: nowAdmin, params: { subscriptions: ['kept'] } }));
  const events = assertOk(await now.api('GET', '/api/v1/events', { as: nowAdmin, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
  const add = events.find((e: any) => e.type === 'subscription' && e.op === 'add');
  assert.ok(add.subscriptions.length === 2 && add.subscriptions.every((s: any) => s.role === 50));
  for (const e of events) applyEvent(reg, e as ClientEvent, nowAdmin.id);
  const fresh = assertOk(await now.api('POST', '/api/v1/register', { as: nowAdmin, params: REGISTER }));
  const strip = (l: any[]) => l.map(({ stream_weekly_traffic: _w, ...rest }) => rest).sort((a, b) => a.stream_id - b.stream_id);
  assert.deepEqual(strip(reg.subscriptions), strip(fresh.subscriptions));
  assert.deepEqual(strip(reg.unsubscribed), strip(fresh.unsubscribed));
});

test('wildcard_mention_policy 4 (stream administrators): kept at 122; from 133 taken as 5, what it always meant, and shown as 5', async () => {
  assertOk(await old.api('PATCH', '/api/v1/realm', { as: oldAdmin, params: { wildcard_mention_policy: 4 } }));
  const oldReg = assertOk(await old.api('POST', '/api/v1/register', { as: oldAdmin, params: { fetch_event_types: ['realm'] } }));
  assert.equal(oldReg.realm_wildcard_mention_policy, 4);
  // An older client's request still works at the newer level (Zulip keeps old clients working).
  assertOk(await now.api('PATCH', '/api/v1/realm', { as: nowAdmin, params: { wildcard_mention_policy: 4 } }));
  const taken = assertOk(await now.api('POST', '/api/v1/register', { as: nowAdmin, params: { fetch_event_types: ['realm'] } }));
  assert.equal(taken.realm_wildcard_mention_policy, 5);
  assertError(await now.api('PATCH', '/api/v1/realm', { as: nowAdmin, params: { wildcard_mention_policy: 0 } }), 'Invalid wildcard_mention_policy');
  for (const v of [1, 2, 3, 5, 6, 7]) assertOk(await now.api('PATCH', '/api/v1/realm', { as: nowAdmin, params: { wildcard_mention_policy: v } }));
  // A value stored before (at level 122) reads as administrators, as Zulip migrated it.
  await setRealmSettings(now, { wildcard_mention_policy: 4 });
  const nowReg = assertOk(await now.api('POST', '/api/v1/register', { as: nowAdmin, params: { fetch_event_types: ['realm'] } }));
  assert.equal(nowReg.realm_wildcard_mention_policy, 5);
});
