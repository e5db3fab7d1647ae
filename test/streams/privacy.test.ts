import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, FEATURE_LEVEL, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { Role } from '../../src/lib/roles.js';
import { assertOk } from '../helpers/assert.js';
import { setRealmSettings, subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';

/**
 * The privacy matrix: member, guest and administrator (none subscribed) and a
 * subscriber, against a public, a private and a web-public stream, through every
 * endpoint of the streams area. Whoever may not see a stream gets exactly the answer
 * they would get for a stream that does not exist, and no event about it.
 */
type Actor = 'member' | 'guest' | 'admin' | 'subscriber';
type Kind = 'public' | 'private' | 'web';
const ACTORS: Actor[] = ['member', 'guest', 'admin', 'subscriber'];
const KINDS: Kind[] = ['public', 'private', 'web'];
const MISSING_ID = 987654;
const MISSING_NAME = 'ghost-stream';

let t: TestApp;
const who = {} as Record<Actor, TestUser>;
const ids = {} as Record<Kind, number>;
const names: Record<Kind, string> = { public: 'pub-m', private: 'priv-m', web: 'web-m' };
let log: EventLog;

before(async () => {
  t = await testApp();
  who.member = await t.createUser();
  who.guest = await t.createUser({ role: Role.GUEST });
  who.admin = await t.createUser({ role: Role.ADMINISTRATOR });
  who.subscriber = await t.createUser();
  await setRealmSettings(t, { enable_spectator_access: true });
  // The owner creates them: from level 325 a stream's creator administers it
  // (can_administer_channel_group), and the matrix is about roles, not creators.
  ids.public = await subscribe(t, t.owner, names.public, { principals: [who.subscriber.id] });
  ids.private = await subscribe(t, t.owner, names.private, { invite_only: true, history_public_to_subscribers: true, principals: [who.subscriber.id] });
  ids.web = await subscribe(t, t.owner, names.web, { is_web_public: true, principals: [who.subscriber.id] });
  log = new EventLog(t);
});
after(async () => { await t.close(); });

const sees = (a: Actor, k: Kind) => a === 'subscriber' || k === 'web' || (k === 'public' && a !== 'guest');
const meta = (a: Actor, k: Kind) => sees(a, k) || a === 'admin';

interface Probe {
  name: string;
  call(as: TestUser, id: number, name: string): Promise<ApiResult>;
  /** What a caller who may look at the stream gets: checked by status only. */
  visible(a: Actor, k: Kind): boolean;
  okStatus?(a: Actor, k: Kind): number;
  cleanup?(as: TestUser, id: number, name: string): Promise<unknown>;
}

const probes: Probe[] = [
  { name: 'GET /streams/{id}', visible: meta, call: (as, id) => t.api('GET', `/api/v1/streams/${id}`, { as }) },
  { name: 'GET /streams/{id}/members', visible: meta, call: (as, id) => t.api('GET', `/api/v1/streams/${id}/members`, { as }) },
  { name: 'GET /users/{uid}/subscriptions/{id}', visible: meta,
    call: (as, id) => t.api('GET', `/api/v1/users/${who.subscriber.id}/subscriptions/${id}`, { as }) },
  { name: 'GET /streams/{id}/email_address', visible: sees, call: (as, id) => t.api('GET', `/api/v1/streams/${id}/email_address`, { as }) },
  { name: 'GET /users/me/{id}/topics', visible: sees, call: (as, id) => t.api('GET', `/api/v1/users/me/${id}/topics`, { as }) },
  { name: 'GET /get_stream_id', visible: sees, call: (as, _id, name) => t.api('GET', '/api/v1/get_stream_id', { as, query: { stream: name } }) },
  { name: 'PATCH muted_topics add by id', visible: sees,
    call: (as, id) => t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as, params: { stream_id: id, topic: 'm', op: 'add' } }),
    cleanup: (as, id) => t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as, params: { stream_id: id, topic: 'm', op: 'remove' } }) },
  { name: 'PATCH muted_topics add by name', visible: sees,
    call: (as, _id, name) => t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as, params: { stream: name, topic: 'n', op: 'add' } }),
    cleanup: (as, id) => t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as, params: { stream_id: id, topic: 'n', op: 'remove' } }) },
  // From level 169 unmuting a topic that is not muted succeeds where the stream is seen; below, an error everywhere.
  { name: 'PATCH muted_topics remove', visible: FEATURE_LEVEL >= 169 ? sees : () => false,
    call: (as, id) => t.api('PATCH', '/api/v1/users/me/subscriptions/muted_topics', { as, params: { stream_id: id, topic: 'never', op: 'remove' } }) },
  // Non-subscribers who see the stream learn only "not subscribed", which they already know.
  { name: 'POST subscription properties', visible: sees, okStatus: (a) => (a === 'subscriber' ? 200 : 400),
    call: (as, id) => t.api('POST', '/api/v1/users/me/subscriptions/properties', { as, params: { subscription_data: [{ stream_id: id, property: 'pin_to_top', value: false }] } }) },
  { name: 'PATCH /streams/{id}', visible: (a, k) => meta(a, k) && (a === 'admin' || sees(a, k)), okStatus: (a) => (a === 'admin' ? 200 : 400),
    call: (as, id) => t.api('PATCH', `/api/v1/streams/${id}`, { as, params: { description: 'same' } }) },
  { name: 'DELETE /streams/{id} (non-admins only)', visible: sees, okStatus: () => 400,
    call: (as, id) => (as === who.admin ? Promise.resolve({ status: 400, body: { skipped: true } }) : t.api('DELETE', `/api/v1/streams/${id}`, { as })) },
  { name: 'POST delete_topic', visible: (a, k) => a !== 'admin' || sees(a, k), okStatus: (a) => (a === 'admin' ? 200 : 400),
    call: (as, id) => t.api('POST', `/api/v1/streams/${id}/delete_topic`, { as, params: { topic_name: 'nothing-here' } }) },
  { name: 'DELETE /users/me/subscriptions', visible: meta,
    call: (as, _id, name) => t.api('DELETE', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [name], principals: [as.id] } }),
    cleanup: (as, _id, name) => (as === who.subscriber ? resubscribe(as, name) : Promise.resolve()) },
  { name: 'POST /default_streams', visible: (a, k) => a !== 'admin' || sees(a, k), okStatus: (a, k) => (a === 'admin' && k !== 'private' ? 200 : 400),
    call: (as, id) => t.api('POST', '/api/v1/default_streams', { as, params: { stream_id: id } }),
    cleanup: (_as, id) => t.api('DELETE', '/api/v1/default_streams', { as: t.owner, params: { stream_id: id } }) },
  { name: 'DELETE /default_streams', visible: (a, k) => a !== 'admin' || meta(a, k), okStatus: (a) => (a === 'admin' ? 200 : 400),
    call: (as, id) => t.api('DELETE', '/api/v1/default_streams', { as, params: { stream_id: id } }) },
];

/** Puts the subscriber back without going through anyone's permissions. */
async function resubscribe(as: TestUser, name: string): Promise<void> {
  await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, name, [as.row]));
}

const scrub = (r: ApiResult, name: string) => JSON.stringify({ status: r.status, body: r.body }).split(name).join('<name>');

for (const probe of probes) {
  test(`privacy matrix: ${probe.name}`, async () => {
    for (const a of ACTORS) {
      for (const k of KINDS) {
        const as = who[a];
        const r = await probe.call(as, ids[k], names[k]);
        const label = `${probe.name} as ${a} on ${k}`;
        if (probe.visible(a, k)) {
          const expected = probe.okStatus ? probe.okStatus(a, k) : 200;
          assert.equal(r.status, expected, `${label}: ${JSON.stringify(r.body)}`);
          if (expected === 200 && probe.cleanup) await probe.cleanup(as, ids[k], names[k]);
        } else {
          // Indistinguishable from a stream that does not exist.
          const missing = await probe.call(as, MISSING_ID, MISSING_NAME);
          assert.equal(scrub(r, names[k]), scrub(missing, MISSING_NAME), label);
          assert.equal(r.status, 400, label);
        }
      }
    }
  });
}

test('privacy matrix: listings', async () => {
  for (const a of ACTORS) {
    const as = who[a];
    const listed = assertOk(await t.api('GET', '/api/v1/streams', { as, query: { include_web_public: true } })).streams.map((s: any) => s.stream_id);
    const subs = assertOk(await t.api('GET', '/api/v1/users/me/subscriptions', { as })).subscriptions.map((s: any) => s.stream_id);
    const defaults = assertOk(await t.api('GET', '/api/v1/default_streams', { as })).default_streams.map((s: any) => s.stream_id);
    for (const k of KINDS) {
      assert.equal(listed.includes(ids[k]), sees(a, k), `GET /streams as ${a}: ${k}`);
      assert.equal(subs.includes(ids[k]), a === 'subscriber', `subscriptions as ${a}: ${k}`);
      assert.ok(k === 'public' || k === 'web' || !defaults.includes(ids[k]));
    }
  }
  const all = assertOk(await t.api('GET', '/api/v1/streams', { as: who.admin, query: { include_all_active: true } })).streams;
  assert.ok(all.some((s: any) => s.stream_id === ids.private));
});

test('privacy matrix: joining a stream one may not see fails and reveals only the name given', async () => {
  for (const a of ACTORS) {
    for (const k of KINDS) {
      const as = who[a];
      const r = await t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name: names[k] }] } });
      if (sees(a, k)) {
        assert.equal(r.status, 200, `${a} joins ${k}`);
        if (a !== 'subscriber') {
          assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [names[k]] } }));
        }
      } else {
        assert.deepEqual(r.body, { result: 'error', msg: `Unable to access stream (${names[k]}).`, code: 'BAD_REQUEST' });
      }
    }
  }
});

test('privacy matrix: no event about the private stream reaches anyone who may not see it', async () => {
  const reached = log.recipientsMentioning(ids.private);
  const allowed = new Set([who.subscriber.id, who.admin.id, t.owner.id]);
  for (const id of reached) assert.ok(allowed.has(id), `user ${id} got an event about the private stream`);
  assert.ok(!reached.has(who.member.id));
  assert.ok(!reached.has(who.guest.id));
  // Public streams: guests hear nothing about them either.
  assert.ok(!log.recipientsMentioning(ids.public).has(who.guest.id));
});
