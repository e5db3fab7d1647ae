import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, messageIds, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';

/**
 * User topics (feature levels 134, 169, 170, 213, 219, 265, 366): POST /user_topics, the
 * legacy PATCH muted_topics mapped onto it, register's user_topics and muted_topics, the
 * user_topic and muted_topics events and which queues take which, and what a policy does
 * to in:home, is:followed, is:muted and unread message details. At level 277, and at 122
 * where the behaviour differs.
 */
let t: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser;
let lobby: number, quiet: number, vault: number;
let log: EventLog;
const UT = '/api/v1/user_topics';
const MUTE = '/api/v1/users/me/subscriptions/muted_topics';

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  const s = await createStreams(t, {
    lobby: [alice, bob, carol], quiet: [alice, bob], vault: { inviteOnly: true, subscribers: [carol] },
  });
  [lobby, quiet, vault] = [s.lobby.id, s.quiet.id, s.vault.id];
  log = new EventLog(t);
});
after(() => t.close());

const setPolicy = (as: TestUser | null, stream_id: number, topic: string, visibility_policy: number) =>
  t.api('POST', UT, { as, params: { stream_id, topic, visibility_policy } });
const register = async (as: TestUser, params: Record<string, unknown> = {}) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params }));
const poll = async (as: TestUser, queueId: string) =>
  assertOk(await t.api('GET', '/api/v1/events', { as, params: { queue_id: queueId, last_event_id: -1, dont_block: true } })).events as Array<Record<string, any>>;

test('POST /user_topics sets each policy, tells only the user, and is idempotent (169/170/219)', async () => {
  for (const [policy, topic] of [[3, 'News'], [2, 'news'], [1, 'NEWS'], [0, 'news']] as Array<[number, string]>) {
    log.clear();
    assertOk(await setPolicy(alice, lobby, topic, policy));
    const ev = log.one('user_topic');
    assert.deepEqual(ev.userIds, [alice.id]);
    const { last_updated: when, ...rest } = ev.event as unknown as Record<string, unknown>;
    assert.deepEqual(rest, { type: 'user_topic', stream_id: lobby, topic_name: topic, visibility_policy: policy });
    assert.equal(typeof when, 'number');
    // The legacy list goes along (queues that asked for it take it).
    assert.deepEqual(log.one('muted_topics').userIds, [alice.id]);
    assert.equal(log.events.filter((e) => !e.userIds.every((u) => u === alice.id)).length, 0);
    // The same policy again (whatever the case of the topic): success, nothing sent.
    log.clear();
    assertOk(await setPolicy(alice, lobby, topic.toUpperCase(), policy));
    assert.equal(log.find('user_topic').length + log.find('muted_topics').length, 0);
  }
});

test('POST /user_topics: every error', async () => {
  assertError(await setPolicy(alice, lobby, 't', 4), 'Invalid visibility_policy');
  assertError(await setPolicy(alice, lobby, 't', -1), 'Invalid visibility_policy');
  assertError(await setPolicy(alice, lobby, 'x'.repeat(61), 1), 'topic is too long (limit: 60 characters)');
  assertOk(await setPolicy(alice, lobby, 'x'.repeat(60), 1));
  assertError(await t.api('POST', UT, { as: alice, params: { topic: 't', visibility_policy: 1 } }), "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'stream_id' });
  assertError(await t.api('POST', UT, { as: alice, params: { stream_id: lobby, visibility_policy: 1 } }), "Missing 'topic' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'topic' });
  assertError(await t.api('POST', UT, { as: alice, params: { stream_id: lobby, topic: 't' } }), "Missing 'visibility_policy' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'visibility_policy' });
  // A stream one cannot see is a stream that does not exist, for setting and for dropping.
  for (const policy of [0, 1, 2, 3]) {
    assertError(await setPolicy(alice, vault, 't', policy), 'Invalid stream id');
    assertError(await setPolicy(alice, 987654, 't', policy), 'Invalid stream id');
    assertError(await setPolicy(alice, 99999999999, 't', policy), 'Invalid stream id');
  }
  assertUnauthenticated(await setPolicy(null, lobby, 't', 1));
});

test('a policy outlives access to its stream, and can still be dropped', async () => {
  const { dora } = await t.createUsers({ dora: { name: 'Dora Later' } });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: carol, params: { subscriptions: [{ name: 'vault' }], principals: [dora.id] } }));
  assertOk(await setPolicy(dora, vault, 'secret', 3));
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: dora, params: { subscriptions: ['vault'] } }));
  assertError(await setPolicy(dora, vault, 'secret', 1), 'Invalid stream id');
  log.clear();
  assertOk(await setPolicy(dora, vault, 'SECRET', 0));
  assert.equal(log.one('user_topic').event.visibility_policy, 0);
  // Dropped: the stream is again as unknown as a missing one.
  assertError(await setPolicy(dora, vault, 'secret', 0), 'Invalid stream id');
});

test('PATCH muted_topics maps onto user topics: idempotent from level 169, its own errors', async () => {
  log.clear();
  assertOk(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: lobby, topic: 'Spam', op: 'add' } }));
  const ev = log.one('user_topic').event as unknown as Record<string, unknown>;
  assert.equal(ev.visibility_policy, 1);
  assertOk(await t.api('PATCH', MUTE, { as: bob, params: { stream: 'lobby', topic: 'spam', op: 'add' } }));
  assertOk(await t.api('PATCH', MUTE, { as: bob, params: { stream: 'lobby', topic: 'spam', op: 'remove' } }));
  assertOk(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: lobby, topic: 'spam', op: 'remove' } }));
  // A followed topic muted through the legacy endpoint becomes muted.
  assertOk(await setPolicy(bob, lobby, 'tracked', 3));
  assertOk(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: lobby, topic: 'tracked', op: 'add' } }));
  const reg = await register(bob, { fetch_event_types: JSON.stringify(['user_topic']) });
  assert.equal(reg.user_topics.find((u: any) => u.topic_name === 'tracked').visibility_policy, 1);
  // Unmuting on a stream one cannot see, or that does not exist: the legacy error.
  assertError(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: vault, topic: 't', op: 'remove' } }), 'Topic is not muted');
  assertError(await t.api('PATCH', MUTE, { as: bob, params: { stream: 'vault', topic: 't', op: 'remove' } }), 'Topic is not muted');
  assertError(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: 987654, topic: 't', op: 'remove' } }), 'Topic is not muted');
  assertError(await t.api('PATCH', MUTE, { as: bob, params: { stream_id: vault, topic: 't', op: 'add' } }), 'Invalid stream id');
});

test('at level 122 the legacy endpoint keeps its errors; POST /user_topics exists anyway', async () => {
  const old = await testApp({ featureLevel: 122 });
  try {
    const { ann } = await old.createUsers({ ann: { name: 'Ann Old' } });
    const { lounge } = await createStreams(old, { lounge: [ann] });
    const patch = (topic: string, op: string) => old.api('PATCH', MUTE, { as: ann, params: { stream_id: lounge.id, topic, op } });
    assertOk(await patch('t', 'add'));
    assertError(await patch('T', 'add'), 'Topic already muted');
    assertOk(await patch('t', 'remove'));
    assertError(await patch('t', 'remove'), 'Topic is not muted');
    assertOk(await old.api('POST', UT, { as: ann, params: { stream_id: lounge.id, topic: 'f', visibility_policy: 3 } }));
    assertOk(await old.api('POST', UT, { as: ann, params: { stream_id: lounge.id, topic: 'm', visibility_policy: 1 } }));
    // Register without fetch_event_types: no user_topics below level 134, the legacy muted_topics as always.
    const all = assertOk(await old.api('POST', '/api/v1/register', { as: ann }));
    assert.equal(all.user_topics, undefined);
    assert.deepEqual(all.muted_topics.map((m: unknown[]) => [m[0], m[1]]), [['lounge', 'm']]);
    // Named, user_topics is there at any level.
    const named = assertOk(await old.api('POST', '/api/v1/register', { as: ann, params: { fetch_event_types: JSON.stringify(['user_topic']) } }));
    assert.deepEqual(named.user_topics.map((u: any) => [u.topic_name, u.visibility_policy]).sort(), [['f', 3], ['m', 1]]);
  } finally {
    await old.close();
  }
});

test('register: user_topics (134) and the legacy muted_topics, by what the client asks for', async () => {
  const { erin } = await t.createUsers({ erin: { name: 'Erin Reg' } });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: erin, params: { subscriptions: [{ name: 'lobby' }, { name: 'quiet' }] } }));
  assertOk(await setPolicy(erin, lobby, 'Muted One', 1));
  assertOk(await setPolicy(erin, quiet, 'Followed', 3));
  assertOk(await setPolicy(erin, lobby, 'Unmuted', 2));
  const all = await register(erin);
  assert.deepEqual(all.user_topics.map(({ last_updated: _l, ...u }: any) => u).sort((a: any, b: any) => a.topic_name.localeCompare(b.topic_name)), [
    { stream_id: quiet, topic_name: 'Followed', visibility_policy: 3 },
    { stream_id: lobby, topic_name: 'Muted One', visibility_policy: 1 },
    { stream_id: lobby, topic_name: 'Unmuted', visibility_policy: 2 },
  ]);
  for (const u of all.user_topics) assert.equal(typeof u.last_updated, 'number');
  // Asking for everything gets both, as Zulip; the legacy list holds only muted topics.
  assert.deepEqual(all.muted_topics.map((m: unknown[]) => [m[0], m[1]]), [['lobby', 'Muted One']]);
  const both = await register(erin, { fetch_event_types: JSON.stringify(['user_topic', 'muted_topics']) });
  assert.equal(both.muted_topics, undefined);
  assert.equal(both.user_topics.length, 3);
  const legacy = await register(erin, { event_types: JSON.stringify(['muted_topics']) });
  assert.equal(legacy.user_topics, undefined);
  assert.equal(legacy.muted_topics.length, 1);
  // An archived stream's policies leave both lists.
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: t.owner, params: { subscriptions: [{ name: 'doomed' }], principals: [erin.id] } }));
  const doomed = assertOk(await t.api('GET', '/api/v1/get_stream_id', { as: erin, query: { stream: 'doomed' } })).stream_id as number;
  assertOk(await setPolicy(erin, doomed, 'gone', 1));
  assertOk(await t.api('DELETE', `/api/v1/streams/${doomed}`, { as: t.owner }));
  const after = await register(erin);
  assert.equal(after.user_topics.length, 3);
  assert.equal(after.muted_topics.length, 1);
});

test('queues: user_topic to those who take it, muted_topics only to those who do not name user_topic', async () => {
  const { fay, gil } = await t.createUsers({ fay: { name: 'Fay Queue' }, gil: { name: 'Gil Bystander' } });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: fay, params: { subscriptions: [{ name: 'lobby' }], principals: [fay.id, gil.id] } }));
  const every = (await register(fay)).queue_id as string;
  const modern = (await register(fay, { event_types: JSON.stringify(['user_topic', 'muted_topics']) })).queue_id as string;
  const legacy = (await register(fay, { event_types: JSON.stringify(['muted_topics']) })).queue_id as string;
  const bystander = (await register(gil)).queue_id as string;
  assertOk(await setPolicy(fay, lobby, 'Queued', 3));
  const types = async (q: string, as: TestUser = fay) => (await poll(as, q)).map((e) => e.type).filter((x) => x !== 'heartbeat');
  assert.deepEqual((await types(every)).sort(), ['muted_topics', 'user_topic']);
  assert.deepEqual(await types(modern), ['user_topic']);
  assert.deepEqual(await types(legacy), ['muted_topics']);
  assert.deepEqual(await types(bystander, gil), []);
  const [ev] = await poll(fay, modern);
  assert.deepEqual(Object.keys(ev!).sort(), ['id', 'last_updated', 'stream_id', 'topic_name', 'type', 'visibility_policy']);
});

test('in:home, is:followed, is:muted and unread details follow the policies (213, 265, 366)', async () => {
  const { hal } = await t.createUsers({ hal: { name: 'Hal Reader' } });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: hal, params: { subscriptions: [{ name: 'lobby' }, { name: 'quiet' }] } }));
  const send = (stream: string, topic: string) => sendMessage(t, alice, { type: 'stream', to: stream, topic, content: `in ${topic}` });
  const plain = await send('lobby', 'plain');
  const muted = await send('lobby', 'muted');
  const followed = await send('lobby', 'followed');
  const hushed = await send('quiet', 'hushed');
  const unmuted = await send('quiet', 'unmuted');
  const followedQuiet = await send('quiet', 'followed here');
  const dm = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([hal.id]), content: 'direct' });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as: hal, params: { subscription_data: [{ stream_id: quiet, property: 'is_muted', value: true }] } }));
  assertOk(await setPolicy(hal, lobby, 'MUTED', 1));
  assertOk(await setPolicy(hal, lobby, 'followed', 3));
  assertOk(await setPolicy(hal, quiet, 'Unmuted', 2));
  assertOk(await setPolicy(hal, quiet, 'followed here', 3));
  const ids = async (narrow: unknown[]) => messageIds(assertOk(await getMessages(t, hal, { narrow: JSON.stringify(narrow) }))).filter((id) => id >= plain);
  assert.deepEqual(await ids([{ operator: 'in', operand: 'home' }]), [plain, followed, unmuted, followedQuiet, dm]);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'muted' }]), [muted, hushed]);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'muted', negated: true }]), [plain, followed, unmuted, followedQuiet, dm]);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'followed' }]), [followed, followedQuiet]);
  assert.deepEqual(await ids([{ operator: 'is', operand: 'followed', negated: true }]), [plain, muted, hushed, unmuted, dm]);
  assert.deepEqual(await ids([{ operator: 'stream', operand: 'quiet' }, { operator: 'is', operand: 'followed' }]), [followedQuiet]);
  // A queue's narrow matches new messages the same way.
  const q = (await register(hal, { event_types: JSON.stringify(['message']), narrow: JSON.stringify([['is', 'followed']]) })).queue_id as string;
  await send('quiet', 'hushed');
  const late = await send('quiet', 'followed here');
  assert.deepEqual((await poll(hal, q)).filter((e) => e.type === 'message').map((e) => e.message.id), [late]);
  // Marked unread again, a muted stream's unmuted topic counts as unmuted; its other topics do not.
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: hal, params: { messages: JSON.stringify([hushed, unmuted, muted, plain]), op: 'add', flag: 'read' } }));
  log.clear();
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: hal, params: { messages: JSON.stringify([hushed, unmuted, muted, plain]), op: 'remove', flag: 'read' } }));
  const details = log.one('update_message_flags', 'remove').event as unknown as { message_details: Record<string, { unmuted_stream_msg: boolean }> };
  assert.deepEqual(Object.fromEntries(Object.entries(details.message_details).map(([id, d]) => [id, d.unmuted_stream_msg])),
    { [hushed]: false, [unmuted]: true, [muted]: false, [plain]: true });
});

test('moving a whole topic carries its policies along', async () => {
  assertOk(await setPolicy(bob, lobby, 'moving', 3));
  assertOk(await setPolicy(carol, lobby, 'moving', 2));
  const m = await sendMessage(t, alice, { type: 'stream', to: 'lobby', topic: 'moving', content: 'x' });
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/messages/${m}`, { as: alice, params: { topic: 'moved', propagate_mode: 'change_all' } }));
  const evs = log.find('user_topic', undefined, (e) => e.userIds[0] === bob.id).map((e) => [(e.event as any).topic_name, (e.event as any).visibility_policy]);
  assert.deepEqual(evs, [['moving', 0], ['moved', 3]]);
  const reg = await register(carol, { fetch_event_types: JSON.stringify(['user_topic']) });
  assert.deepEqual(reg.user_topics.filter((u: any) => u.stream_id === lobby).map((u: any) => [u.topic_name, u.visibility_policy]), [['moved', 2]]);
});
