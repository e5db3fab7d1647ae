import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk, sorted } from '../helpers/assert.js';
import { setRealmSettings, subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

/** Who hears about what: each stream event reaches exactly the users who may see it. */
let t: TestApp;
let admin: TestUser, creator: TestUser, bystander: TestUser, guest: TestUser;
let log: EventLog;
before(async () => {
  t = await testApp();
  ({ admin, creator, bystander, guest } = await t.createUsers({ admin: ROLES.admin, creator: {}, bystander: {}, guest: ROLES.guest }));
  log = new EventLog(t);
});
after(async () => { await t.close(); });

test('creating a private stream: administrators and the subscribers only', async () => {
  log.clear();
  const id = await subscribe(t, creator, 'quiet', { invite_only: true, principals: [creator.id, guest.id] });
  const creates = log.find('stream', 'create');
  const told = sorted(creates.flatMap((e) => e.userIds));
  assert.deepEqual(told, sorted([t.owner.id, admin.id, creator.id, guest.id]));
  assert.ok(creates.every((e) => (e.event.streams as any[])[0].stream_id === id));
  const adds = log.find('subscription', 'add');
  assert.deepEqual(sorted(adds.flatMap((e) => e.userIds)), sorted([creator.id, guest.id]));
  const peer = log.one('subscription', 'peer_add');
  assert.deepEqual(sorted(peer.userIds), sorted([t.owner.id, admin.id]));
  assert.deepEqual(peer.event.user_ids, sorted([creator.id, guest.id]));
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/streams/${id}`, { as: admin, params: { description: 'shh' } }));
  assert.deepEqual(sorted(log.one('stream', 'update').userIds), sorted([t.owner.id, admin.id, creator.id, guest.id]));
  log.clear();
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: guest, params: { subscriptions: ['quiet'] } }));
  assert.deepEqual(log.one('subscription', 'remove').userIds, [guest.id]);
  assert.deepEqual(sorted(log.one('subscription', 'peer_remove').userIds), sorted([t.owner.id, admin.id, creator.id]));
  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/streams/${id}`, { as: admin }));
  assert.deepEqual(sorted(log.one('stream', 'delete').userIds), sorted([t.owner.id, admin.id, creator.id]));
  assert.ok(!log.recipientsMentioning(id).has(bystander.id));
});

test('creating a web-public stream tells everyone, guests included', async () => {
  await setRealmSettings(t, { enable_spectator_access: true });
  log.clear();
  await subscribe(t, t.owner, 'loud', { is_web_public: true });
  assert.deepEqual(sorted(log.one('stream', 'create').userIds), sorted([t.owner.id, admin.id, creator.id, bystander.id, guest.id]));
  assert.deepEqual(sorted(log.one('subscription', 'peer_add').userIds), sorted([admin.id, creator.id, bystander.id, guest.id]));
});

test('subscribing a guest to a public stream: the guest learns of the stream itself', async () => {
  const id = await subscribe(t, creator, 'plaza');
  log.clear();
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: creator, params: { subscriptions: [{ name: 'plaza' }], principals: [guest.id] } }));
  const create = log.one('stream', 'create');
  assert.deepEqual(create.userIds, [guest.id]);
  assert.equal((create.event.streams as any[])[0].stream_id, id);
  assert.deepEqual(log.one('subscription', 'add').userIds, [guest.id]);
  // Events follow commit: a request that fails after creating its stream publishes nothing.
  await setRealmSettings(t, { invite_to_stream_policy: 2 });
  log.clear();
  const bad = await t.api('POST', '/api/v1/users/me/subscriptions', { as: creator, params: { subscriptions: [{ name: 'never-made' }], principals: [bystander.id] } });
  assert.equal(bad.body.msg, 'Insufficient permission');
  assert.deepEqual(log.events, []);
  assert.equal((await t.api('GET', '/api/v1/get_stream_id', { as: creator, query: { stream: 'never-made' } })).status, 400);
  await setRealmSettings(t, { invite_to_stream_policy: 1 });
});
