import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { Role } from '../../src/lib/roles.js';
import { subscriptions } from '../../src/store/repos/subscriptions.js';

// Level 362: subscriptions in archived channels are added and removed like any other, by
// whoever may do so in an active channel; below it an archived channel's name is unknown
// to these requests.
let t: TestApp, old: TestApp;
let log: EventLog;
let member: TestUser, other: TestUser, admin: TestUser, guest: TestUser, outsider: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 361 });
  log = new EventLog(t);
  member = await t.createUser({ name: 'Max Member' });
  other = await t.createUser({ name: 'Otto Other' });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  outsider = await t.createUser({ name: 'Oona Outsider' });
});
after(async () => { await t.close(); await old.close(); });

const sub = (app: TestApp, as: TestUser, names: string[], params: Record<string, unknown> = {}) =>
  app.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: names.map((name) => ({ name })), ...params } });
const unsub = (app: TestApp, as: TestUser, names: string[], params: Record<string, unknown> = {}) =>
  app.api('DELETE', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: names, ...params } });
const archive = async (app: TestApp, id: number) => assertOk(await app.api('DELETE', `/api/v1/streams/${id}`, { as: app.owner }));
const subscribed = async (app: TestApp, userId: number, streamId: number) =>
  (await subscriptions.mapActiveOfUser(app.app.ctx.store.db, userId, [streamId])).has(streamId);
const streamCount = async (app: TestApp) => (await app.app.ctx.store.db.selectFrom('stream').select('id').where('realm_id', '=', app.realm.id).execute()).length;

test('362: joining, leaving and unsubscribing others in an archived public channel; events', async () => {
  const { 'arch-pub-362': s } = await createStreams(t, { 'arch-pub-362': [member] });
  await archive(t, s.id);
  const before = await streamCount(t);
  log.clear();
  const r = assertOk(await sub(t, other, ['arch-pub-362']));
  assert.deepEqual(r.subscribed, { [String(other.id)]: ['arch-pub-362'] });
  assert.equal(await streamCount(t), before, 'no new stream of the archived name');
  assert.ok(await subscribed(t, other.id, s.id));
  const add = log.one('subscription', 'add', (e) => e.userIds.includes(other.id));
  assert.deepEqual(add.userIds, [other.id]);
  // A public archived stream is no news to its new subscriber: no stream/create.
  assert.equal(log.find('stream', 'create').length, 0);
  const peer = log.one('subscription', 'peer_add');
  assert.ok(peer.userIds.includes(member.id) && !peer.userIds.includes(other.id) && !peer.userIds.includes(guest.id));
  // Joining again: already subscribed.
  assert.deepEqual(assertOk(await sub(t, other, ['ARCH-PUB-362'])).already_subscribed, { [String(other.id)]: ['arch-pub-362'] });
  // Leaving.
  log.clear();
  assert.deepEqual(assertOk(await unsub(t, other, ['arch-pub-362'])).removed, ['arch-pub-362']);
  assert.ok(!(await subscribed(t, other.id, s.id)));
  assert.deepEqual(log.one('subscription', 'remove').userIds, [other.id]);
  // Others: an administrator may unsubscribe a member; a member may not.
  assertError(await unsub(t, other, ['arch-pub-362'], { principals: [member.id] }), 'Insufficient permission');
  assert.deepEqual(assertOk(await unsub(t, admin, ['arch-pub-362'], { principals: [member.id] })).removed, ['arch-pub-362']);
  // And subscribe them again.
  assert.deepEqual(assertOk(await sub(t, admin, ['arch-pub-362'], { principals: [member.id] })).subscribed, { [String(member.id)]: ['arch-pub-362'] });
  // A guest may not join an archived public channel, as an active one.
  assertError(await sub(t, guest, ['arch-pub-362']), 'Unable to access stream (arch-pub-362).');
});

test('362: an archived private channel stays private', async () => {
  const { 'arch-priv-362': s } = await createStreams(t, { 'arch-priv-362': { subscribers: [member], inviteOnly: true } });
  await archive(t, s.id);
  const before = await streamCount(t);
  log.clear();
  // An outsider learns nothing: refused with the name they gave, no stream created, no event.
  assertError(await sub(t, outsider, ['arch-priv-362']), 'Unable to access stream (arch-priv-362).');
  assertError(await unsub(t, outsider, ['arch-priv-362']), "Stream 'arch-priv-362' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'arch-priv-362' });
  assert.equal(await streamCount(t), before);
  assert.equal(log.recipientsMentioning(s.id).size, 0);
  // Subscription properties stay unchangeable there (Zulip's access_stream_by_id requires an active channel).
  assertError(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as: member,
    params: { subscription_data: [{ stream_id: s.id, property: 'is_muted', value: true }] } }), 'Invalid stream id');
  // Its subscriber may leave it.
  assert.deepEqual(assertOk(await unsub(t, member, ['arch-priv-362'])).removed, ['arch-priv-362']);
  assert.ok(!(await subscribed(t, member.id, s.id)));
});

test('362: an active stream of the same name wins over the archived one', async () => {
  const { 'reused-362': s } = await createStreams(t, { 'reused-362': [member] });
  await archive(t, s.id);
  const { 'reused-362': active } = await createStreams(t, { 'reused-362': [] });
  const fresh = assertOk(await sub(t, other, ['reused-362']));
  assert.deepEqual(fresh.subscribed, { [String(other.id)]: ['reused-362'] });
  assert.ok(await subscribed(t, other.id, active.id) && !(await subscribed(t, other.id, s.id)), 'subscribed to the new stream, not the archived one');
  assert.deepEqual(assertOk(await unsub(t, member, ['reused-362'])).not_removed, ['reused-362']);
  assert.ok(await subscribed(t, member.id, s.id));
});

test('below 362: an archived channel is unknown to subscribe and unsubscribe', async () => {
  const { 'arch-old-362': s } = await createStreams(old, { 'arch-old-362': [] });
  const m = await old.createUser({ name: 'Mo Member' });
  assertOk(await sub(old, m, ['arch-old-362']));
  await archive(old, s.id);
  assertError(await unsub(old, m, ['arch-old-362']), "Stream 'arch-old-362' does not exist", 'STREAM_DOES_NOT_EXIST', 400, { stream: 'arch-old-362' });
  assert.ok(await subscribed(old, m.id, s.id));
});

test('362: unauthenticated requests are refused', async () => {
  assertUnauthenticated(await t.api('POST', '/api/v1/users/me/subscriptions', { as: null, params: { subscriptions: [{ name: 'x' }] } }));
  assertUnauthenticated(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: null, params: { subscriptions: ['x'] } }));
});
