import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { applyEvent } from '../../src/events/apply.js';
import { validateEvent } from '../../src/events/schemas.js';
import type { ClientEvent } from '../../src/events/types.js';

// Feature level 222: deactivation and reactivation are realm_user (and realm_bot) `update`
// events with `is_active`, not remove/add; below it, remove/add as at 122. Register state
// plus the events equals a fresh register either way (src/events/apply/users.ts).
let t: TestApp, old: TestApp;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  old = await testApp({ featureLevel: 122 });
});
after(async () => { await t.close(); await old.close(); });

const KEYS = ['realm_users', 'realm_non_active_users', 'realm_bots'];
const byId = (list: any[]) => [...list].sort((a, b) => a.user_id - b.user_id);
const pick = (s: any) => Object.fromEntries(KEYS.map((k) => [k, byId(s[k])]));

async function cycle(app: TestApp, viewer: TestUser, target: TestUser, bot: TestUser): Promise<Array<Record<string, any>>> {
  const reg = assertOk(await app.api('POST', '/api/v1/register', { as: viewer, params: { fetch_event_types: ['realm_user', 'realm_bot'] } }));
  const state = structuredClone(reg);
  assertOk(await app.api('DELETE', `/api/v1/users/${target.id}`, { as: app.owner }));
  assertOk(await app.api('DELETE', `/api/v1/bots/${bot.id}`, { as: viewer }));
  const mid = assertOk(await app.api('POST', '/api/v1/register', { as: viewer, params: { fetch_event_types: ['realm_user', 'realm_bot'] } }));
  let events = assertOk(await app.api('GET', '/api/v1/events', { as: viewer, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
  for (const e of events) {
    assert.deepEqual(validateEvent(e), [], JSON.stringify(e));
    applyEvent(state, e as ClientEvent, viewer.id);
  }
  assert.deepEqual(pick(state), pick(mid));
  const all = [...events];
  assertOk(await app.api('POST', `/api/v1/users/${target.id}/reactivate`, { as: app.owner }));
  assertOk(await app.api('POST', `/api/v1/users/${bot.id}/reactivate`, { as: app.owner }));
  events = assertOk(await app.api('GET', '/api/v1/events', { as: viewer, params: { queue_id: reg.queue_id, last_event_id: all.at(-1)!.id, dont_block: true } })).events;
  for (const e of events) {
    assert.deepEqual(validateEvent(e), [], JSON.stringify(e));
    applyEvent(state, e as ClientEvent, viewer.id);
  }
  const fresh = assertOk(await app.api('POST', '/api/v1/register', { as: viewer, params: { fetch_event_types: ['realm_user', 'realm_bot'] } }));
  assert.deepEqual(pick(state), pick(fresh));
  return [...all, ...events].filter((e) => e.type === 'realm_user' || e.type === 'realm_bot').map(({ id: _id, ...e }) => e);
}

test('at 277: updates with is_active, for users and bots', async () => {
  const viewer = await t.createUser({ name: 'Vera Viewer' });
  const target = await t.createUser({ name: 'Tom Target' });
  const bot = await t.createBot(viewer, { fullName: 'Viewer Bot', shortName: 'viewerbot' });
  const log = new EventLog(t);
  const events = await cycle(t, viewer, target, bot);
  assert.deepEqual(events, [
    { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: false } },
    { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: false } },
    { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: false } },
    { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: true } },
    { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: true } },
    { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: true } },
  ]);
  // No remove or add reached anyone.
  assert.deepEqual(log.find('realm_user', 'remove'), []);
  assert.deepEqual(log.find('realm_bot', 'remove'), []);
  assert.deepEqual(log.find('realm_user', 'add'), []);
});

test('at 122: remove and add, as before', async () => {
  const viewer = await old.createUser({ name: 'Vera Viewer' });
  const target = await old.createUser({ name: 'Tom Target' });
  const bot = await old.createBot(viewer, { fullName: 'Viewer Bot', shortName: 'viewerbot' });
  const events = await cycle(old, viewer, target, bot);
  assert.deepEqual(events.map((e) => `${e.type}:${e.op}`), ['realm_user:remove', 'realm_user:remove', 'realm_bot:remove', 'realm_user:add', 'realm_user:add', 'realm_bot:add']);
});
