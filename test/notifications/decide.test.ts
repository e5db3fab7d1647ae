import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import type { Notifications } from '../../src/notifications/start.js';
import { recorder } from './recorder.js';

/**
 * Who is notified of what (Zulip's notification_data.py rules), through HTTP sends: the
 * decision is stored as pending notifications and handed to recording senders.
 */
let t: TestApp;
let n: Notifications;
let rec: ReturnType<typeof recorder>;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
let general: number;
const FAR = () => Math.floor(Date.now() / 1000) + 100_000;

before(async () => {
  rec = recorder();
  t = await testApp({ featureLevel: 372, pushBouncerUrl: 'http://127.0.0.1:9/' }, { notificationSenders: rec });
  n = t.app.ctx.notifications!;
  alice = await t.createUser({ name: 'Alice Smith' });
  bob = await t.createUser({ name: 'Bob Jones' });
  carol = await t.createUser({ name: 'Carol King' });
  dave = await t.createUser({ name: 'Dave Long' });
  for (const u of [alice, bob, carol, dave]) ok(await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: u, params: { token: `fcm-token-${u.id}` } }));
  const r = await t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: JSON.stringify([{ name: 'general' }]), principals: JSON.stringify([alice.id, bob.id, carol.id, dave.id]) } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  general = (await t.api('GET', '/api/v1/get_stream_id', { as: alice, params: { stream: 'general' } })).body.stream_id;
});
after(() => t.close());

const ok = (r: { status: number; body: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};
const send = async (as: TestUser, params: Record<string, unknown>): Promise<number> =>
  ok(await t.api('POST', '/api/v1/messages', { as, params })).id;
const stream = (as: TestUser, content: string, topic = 'chat') => send(as, { type: 'stream', to: String(general), topic, content });
const dm = (as: TestUser, to: TestUser, content: string) => send(as, { type: 'private', to: JSON.stringify([to.id]), content });
const settings = async (as: TestUser, params: Record<string, unknown>) => ok(await t.api('PATCH', '/api/v1/settings', { as, params }));
const subProp = async (as: TestUser, property: string, value: unknown) =>
  ok(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as, params: { subscription_data: JSON.stringify([{ stream_id: general, property, value }]) } }));

/** Decides and sends everything (far in the future: email batches are due), and answers what each user got for `id`. */
async function outcome(id: number): Promise<Map<number, { email?: string; push?: string; group?: number | null }>> {
  await n.decideNow();
  await n.runDue(FAR());
  const out = new Map<number, { email?: string; push?: string; group?: number | null }>();
  for (const c of rec.calls) {
    for (const i of c.items) {
      if (i.messageId !== id) continue;
      const o = out.get(c.userId) ?? {};
      o[c.kind] = i.trigger;
      o.group = i.mentionedUserGroupId;
      out.set(c.userId, o);
    }
  }
  return out;
}
const got = async (id: number, user: TestUser) => (await outcome(id)).get(user.id);

test('a private message notifies its away recipient by email and push, never the sender', async () => {
  const id = await dm(alice, bob, 'hello');
  await until(async () => (await got(id, bob))?.email);
  const o = await outcome(id);
  assert.deepEqual(o.get(bob.id), { email: 'private_message', push: 'private_message', group: null });
  assert.equal(o.get(alice.id), undefined);
});

test('stream messages: nothing by default; personal mention; stream settings and defaults', async () => {
  const plain = await stream(alice, 'just chatting');
  assert.equal((await outcome(plain)).size, 0);
  // (Bob follows the topic he is mentioned in, Zulip's automatically_follow_topics_where_mentioned: another topic.)
  const mention = await stream(alice, 'hi @**Bob Jones**', 'mentions');
  await until(async () => (await got(mention, bob))?.email);
  assert.deepEqual((await outcome(mention)).get(bob.id), { email: 'mentioned', push: 'mentioned', group: null });
  assert.equal((await outcome(mention)).get(carol.id), undefined);
  await settings(carol, { enable_stream_email_notifications: true });
  await subProp(dave, 'push_notifications', true);
  const s = await stream(alice, 'news');
  await until(async () => (await outcome(s)).size === 2);
  const o = await outcome(s);
  assert.deepEqual(o.get(carol.id), { email: 'stream_email_notify', group: null });
  assert.deepEqual(o.get(dave.id), { push: 'stream_push_notify', group: null });
  // The subscription's own setting beats the default.
  await subProp(carol, 'email_notifications', false);
  const s2 = await stream(alice, 'more news');
  await until(async () => (await outcome(s2)).size === 1);
  assert.equal((await outcome(s2)).get(carol.id), undefined);
    await settings(carol, { enable_stream_email_notifications: false });
  await subProp(dave, 'push_notifications', false);
});

test('wildcard mentions follow wildcard_mentions_notify (subscription, else the user\'s)', async () => {
  await subProp(carol, 'email_notifications', false);
  await settings(dave, { wildcard_mentions_notify: false });
  await subProp(bob, 'wildcard_mentions_notify', false);
  const id = await stream(alice, '@**all** meeting now');
  await until(async () => (await got(id, carol))?.email);
  const o = await outcome(id);
  assert.deepEqual(o.get(carol.id), { email: 'stream_wildcard_mentioned', push: 'stream_wildcard_mentioned', group: null });
  assert.equal(o.get(dave.id), undefined);
  assert.equal(o.get(bob.id), undefined);
  await subProp(bob, 'wildcard_mentions_notify', true);
  // A topic wildcard reaches the topic's participants (Carol follows the topic she started: Zulip's automatic follow).
  await stream(carol, 'I was here', 'topical');
  const tw = await stream(alice, '@**topic** look', 'topical');
  await until(async () => (await got(tw, carol))?.email);
  assert.deepEqual((await outcome(tw)).get(carol.id), { email: 'topic_wildcard_mentioned_in_followed_topic', push: 'topic_wildcard_mentioned_in_followed_topic', group: null });
  assert.equal((await outcome(tw)).get(bob.id), undefined);
  await settings(dave, { wildcard_mentions_notify: true });
});

test('a group mention names the smallest mentioned group; a personal mention wins', async () => {
  const small = ok(await t.api('POST', '/api/v1/user_groups/create', { as: alice, params: { name: 'small', description: 's', members: JSON.stringify([bob.id]) } }));
  void small;
  ok(await t.api('POST', '/api/v1/user_groups/create', { as: alice, params: { name: 'big', description: 'b', members: JSON.stringify([bob.id, carol.id, dave.id]) } }));
  const groups = ok(await t.api('GET', '/api/v1/user_groups', { as: alice })).user_groups as Array<{ id: number; name: string }>;
  const smallId = groups.find((g) => g.name === 'small')!.id;
  const bigId = groups.find((g) => g.name === 'big')!.id;
  const id = await stream(alice, 'hey @*big* and @*small* and @**Dave Long**');
  await until(async () => (await outcome(id)).size === 3);
  const o = await outcome(id);
  assert.deepEqual(o.get(bob.id), { email: 'mentioned', push: 'mentioned', group: smallId });
  assert.deepEqual(o.get(carol.id), { email: 'mentioned', push: 'mentioned', group: bigId });
  assert.deepEqual(o.get(dave.id), { email: 'mentioned', push: 'mentioned', group: null });
});

test('muted senders, muted topics and muted streams; followed topics', async () => {
  ok(await t.api('POST', `/api/v1/users/me/muted_users/${alice.id}`, { as: bob }));
  const m1 = await dm(alice, bob, 'you muted me');
  assert.equal(await got(m1, bob), undefined);
  ok(await t.api('DELETE', `/api/v1/users/me/muted_users/${alice.id}`, { as: bob }));
  await settings(carol, { enable_stream_email_notifications: true });
  ok(await t.api('POST', '/api/v1/user_topics', { as: carol, params: { stream_id: general, topic: 'boring', visibility_policy: 1 } }));
  const wild = await stream(alice, '@**all** boring stuff', 'boring');
  const o = await outcome(wild);
  assert.equal(o.get(carol.id), undefined, 'muted topic: no wildcard, no stream notification');
  assert.ok(o.get(bob.id));
  await subProp(dave, 'is_muted', true);
  const mutedStream = await stream(alice, '@**all** again', 'quiet');
  assert.equal((await outcome(mutedStream)).get(dave.id), undefined);
  ok(await t.api('POST', '/api/v1/user_topics', { as: dave, params: { stream_id: general, topic: 'followed', visibility_policy: 3 } }));
  const f = await stream(alice, 'in a followed topic', 'followed');
  await until(async () => (await got(f, dave))?.email);
  assert.deepEqual((await got(f, dave)), { email: 'followed_topic_email_notify', push: 'followed_topic_push_notify', group: null });
  // A personal mention still notifies in a muted stream.
  const pm = await stream(alice, '@**Dave Long** look', 'elsewhere');
  await until(async () => (await got(pm, dave))?.email);
  await subProp(dave, 'is_muted', false);
  await settings(carol, { enable_stream_email_notifications: false });
});

test('no push for a user with no mobile device (Zulip\'s push_device_registered)', async () => {
  const erin = await t.createUser({ name: 'Erin Moss' });
  const id = await dm(alice, erin, 'no phone');
  await until(async () => (await got(id, erin))?.email);
  assert.deepEqual(await got(id, erin), { email: 'private_message', group: null });
});

test('bots and settings off receive nothing', async () => {
  const bot = await t.createBot(alice, { fullName: 'Helper', shortName: 'helper' });
  const id = await dm(alice, bot, 'hi bot');
  assert.equal(await got(id, bot), undefined);
  await settings(carol, { enable_offline_email_notifications: false, enable_offline_push_notifications: false });
  const m = await dm(alice, carol, 'quiet please');
  assert.equal(await got(m, carol), undefined);
  await settings(carol, { enable_offline_email_notifications: true, enable_offline_push_notifications: true });
});

test('away: a polled message queue with recent presence is not away (push only with online push)', async () => {
  ok(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: JSON.stringify(['message']) } }));
  ok(await t.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active' } }));
  const m = await dm(alice, bob, 'are you there');
  await until(async () => (await got(m, bob))?.push);
  assert.deepEqual(await got(m, bob), { push: 'private_message', group: null }, 'online push, no email');
  await settings(bob, { enable_online_push_notifications: false });
  const m2 = await dm(alice, bob, 'still there');
  assert.equal(await got(m2, bob), undefined);
  // A queue that takes no message events does not count; nor does presence alone.
  ok(await t.api('POST', '/api/v1/register', { as: carol, params: { event_types: JSON.stringify(['presence']) } }));
  ok(await t.api('POST', '/api/v1/users/me/presence', { as: carol, params: { status: 'active' } }));
  const m3 = await dm(alice, carol, 'hello carol');
  await until(async () => (await got(m3, carol))?.email);
});
