import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { testApp, basic, httpClient, people, type TestApp, type TestUser, FEATURE_LEVEL } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { eventQueues, untilParked } from '../helpers/events.js';
import { until } from '../helpers/until.js';
import { queuesOf } from '../../src/events/manager.js';
import { cacheSignal } from '../../src/cache/signal.js';
import { EPOCH_ROW_KINDS } from '../../src/store/changes.js';

const changedElsewhere = () => cacheSignal.retire({ scopes: new Set(EPOCH_ROW_KINDS) });

let t: TestApp;
let base: string;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

before(async () => {
  t = await testApp({ heartbeatMs: 400 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  await createStreams(t, { general: [alice, bob, carol], random: [alice, bob], secret: { inviteOnly: true, subscribers: [alice] } });
  base = await t.listen();
});
after(() => t.close());

/** Real HTTP, as clients do it: form bodies, basic auth. */
const http = httpClient(() => base);
const { register, poll } = eventQueues(http);
const sendStream = (as: TestUser, to: string, content: string, extra: Record<string, unknown> = {}) =>
  http(as, 'POST', '/messages', { type: 'stream', to, topic: 'events', content, ...extra });

test('register answers a queue, the version fields and the state for every fetch type', async () => {
  const r = await register(alice);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.queue_id, /^[0-9a-f]+:/);
  assert.equal(r.body.last_event_id, -1);
  assert.equal(r.body.zulip_feature_level, FEATURE_LEVEL);
  assert.equal(r.body.service_feature_level, FEATURE_LEVEL);
  assert.equal(typeof r.body.zulip_version, 'string');
  assert.equal(typeof r.body.zulip_merge_base, 'string');
  for (const key of ['realm_users', 'realm_non_active_users', 'cross_realm_bots', 'subscriptions', 'unsubscribed', 'never_subscribed', 'streams',
    'unread_msgs', 'max_message_id', 'starred_messages', 'recent_private_conversations', 'presences', 'alert_words', 'muted_topics', 'muted_users',
    'realm_user_groups', 'custom_profile_fields', 'realm_emoji', 'realm_linkifiers', 'user_status', 'drafts', 'realm_name', 'max_stream_name_length',
    'max_topic_length', 'max_message_length', 'event_queue_longpoll_timeout_seconds', 'realm_default_streams', 'twenty_four_hour_time']) {
    assert.ok(key in r.body, `missing ${key}`);
  }
  assert.equal(r.body.event_queue_longpoll_timeout_seconds, 90);
  // The typing and presence timing of the spec's Limits table.
  assert.deepEqual([r.body.server_typing_started_wait_period_milliseconds, r.body.server_typing_stopped_wait_period_milliseconds,
    r.body.server_typing_started_expiry_period_milliseconds, r.body.server_presence_ping_interval_seconds, r.body.server_presence_offline_threshold_seconds],
  [10_000, 5_000, 15_000, 60, 140]);
  assert.deepEqual(r.body.subscriptions.map((s: any) => s.name).sort(), ['general', 'random', 'secret']);
  assert.ok(!r.body.never_subscribed.some((s: any) => s.name === 'secret'));
  assert.deepEqual(Object.keys(r.body.unread_msgs).sort(), ['count', 'huddles', 'mentions', 'old_unreads_missing', 'pms', 'streams']);
  const slim = await register(alice, { fetch_event_types: ['message'], event_types: ['message'] });
  assert.deepEqual(Object.keys(slim.body).filter((k) => !['result', 'msg', 'queue_id', 'last_event_id'].includes(k) && !k.includes('version') && !k.includes('merge_base') && !k.includes('feature_level')), ['max_message_id']);
  const settingsObj = await register(alice, { fetch_event_types: ['user_settings'], client_capabilities: { user_settings_object: true } });
  assert.equal(typeof settingsObj.body.user_settings, 'object');
  assert.equal(settingsObj.body.twenty_four_hour_time, undefined);
  assert.deepEqual(settingsObj.body.user_settings.emojiset_choices.map((c: any) => c.key), ['google', 'google-blob', 'twitter', 'text']);
  assert.ok(settingsObj.body.user_settings.available_notification_sounds.includes('zulip'));
  // Each fetch type brings its whole group, as Zulip groups them.
  const users = (await register(alice, { fetch_event_types: ['realm_user'] })).body;
  // Level 341 removed can_subscribe_other_users, 363 is_billing_admin.
  const gone = [...(FEATURE_LEVEL >= 341 ? ['can_subscribe_other_users'] : []), ...(FEATURE_LEVEL >= 363 ? ['is_billing_admin'] : [])];
  for (const key of ['delivery_email', 'avatar_url_medium', 'is_owner', 'is_moderator', 'is_guest', 'is_billing_admin', 'can_subscribe_other_users', 'can_invite_others_to_realm', 'user_id', 'full_name']) {
    assert.equal(key in users, !gone.includes(key), `realm_user ${gone.includes(key) ? 'has' : 'lacks'} ${key}`);
  }
  assert.equal(users.realm_name, undefined);
  const realm = (await register(alice, { fetch_event_types: ['realm'] })).body;
  assert.equal(realm.max_file_upload_size_mib, 25);
  assert.equal(realm.realm_bot_domain, 'parley.test');
  assert.equal(typeof realm.giphy_rating_options, 'object');
  const profile = (await register(alice, { fetch_event_types: ['custom_profile_fields'] })).body;
  assert.deepEqual(profile.custom_profile_field_types.SHORT_TEXT, { id: 1, name: 'Short text' });
  const defaults = (await register(alice, { fetch_event_types: ['realm_user_settings_defaults'] })).body.realm_user_settings_defaults;
  assert.equal(defaults.enter_sends, false);
  assert.equal(defaults.timezone, undefined, 'a time zone is personal');
  assert.equal(defaults.emojiset, 'google-blob');
  const legacy = (await register(alice, { fetch_event_types: ['update_display_settings'] })).body;
  assert.equal(legacy.emojiset_choices.length, 4);
});

test('a long poll parks until another user sends a message, then answers it personalised', async () => {
  const q = (await register(bob, { event_types: ['message'] })).body;
  const empty = await poll(bob, q.queue_id, -1, { dont_block: true });
  assert.deepEqual(empty.body.events, []);
  assert.equal(empty.body.queue_id, q.queue_id);
  const pending = poll(bob, q.queue_id, -1);
  await untilParked(t.app.ctx, q.queue_id, bob.id);
  const sent = await sendStream(alice, 'general', 'hello **bob**');
  let got = await pending;
  assert.equal(got.status, 200);
  // On a loaded machine the send can outlast the 400 ms heartbeat: the message then follows it.
  let heartbeats = 0;
  while (got.body.events[0]?.type === 'heartbeat') {
    heartbeats += 1;
    got = await poll(bob, q.queue_id, got.body.events[0].id);
  }
  const [e] = got.body.events;
  assert.equal(e.type, 'message');
  assert.equal(e.id, heartbeats);
  assert.equal(e.message.id, sent.body.id);
  assert.equal(e.message.content, 'hello **bob**', 'apply_markdown defaults to false');
  assert.equal(e.message.content_type, 'text/x-markdown');
  assert.deepEqual(e.flags, []);
  assert.equal(e.local_message_id, undefined);
  // Acknowledged events are gone.
  assert.deepEqual((await poll(bob, q.queue_id, e.id, { dont_block: true })).body.events, []);
  const md = (await register(bob, { event_types: ['message'], apply_markdown: true, client_gravatar: true })).body;
  await sendStream(alice, 'general', 'rendered');
  const [e2] = (await poll(bob, md.queue_id, -1)).body.events;
  assert.equal(e2.message.content, '<p>rendered</p>');
  assert.equal(e2.message.avatar_url, null);
});

test('a heartbeat answers a quiet poll', async () => {
  const q = (await register(bob, { event_types: ['message'] })).body;
  const r = await poll(bob, q.queue_id, -1);
  assert.deepEqual(r.body.events, [{ type: 'heartbeat', id: 0 }]);
});

test('a parked poll whose client hangs up is let go; the queue keeps its events for the next poll', async () => {
  const q = (await register(bob, { event_types: ['message'] })).body;
  const queue = queuesOf(t.app.ctx).get(q.queue_id, bob.id);
  const started = Date.now();
  const aborted = new AbortController();
  const url = `${base}/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1`;
  const hungUp = fetch(url, { headers: { authorization: basic(bob.email, bob.apiKey) }, signal: aborted.signal }).catch((e: Error) => e.name);
  await until(() => queue.waiter !== undefined, { message: 'the poll to park' });
  aborted.abort();
  assert.equal(await hungUp, 'AbortError');
  await until(() => queue.waiter === undefined, { message: 'the hang-up to unpark the poll' });
  assert.ok(queue.state.lastAccess >= started, 'idle from the hang-up');
  const sent = await sendStream(alice, 'general', 'while nobody listened');
  const got = await poll(bob, q.queue_id, -1);
  assert.deepEqual(got.body.events.map((e: { message: { id: number } }) => e.message.id), [sent.body.id]);
});

test('a note to self arrives naming its one member once, as GET /messages shows it', async () => {
  const q = (await register(carol, { event_types: ['message'] })).body;
  const sent = await http(carol, 'POST', '/messages', { type: 'private', to: [carol.id], content: 'remember the milk' });
  const [e] = (await poll(carol, q.queue_id, -1)).body.events;
  const fetched = (await http(carol, 'GET', `/messages/${sent.body.id}`)).body.message;
  assert.deepEqual(e.message.display_recipient.map((u: { id: number }) => u.id), [carol.id]);
  assert.deepEqual(e.message.display_recipient, fetched.display_recipient);
});

test('local_id comes back only on the sending queue', async () => {
  const mine = (await register(alice, { event_types: ['message'] })).body;
  const other = (await register(alice, { event_types: ['message'] })).body;
  await sendStream(alice, 'general', 'echo', { queue_id: mine.queue_id, local_id: '42.01' });
  const [a] = (await poll(alice, mine.queue_id, -1)).body.events;
  const [b] = (await poll(alice, other.queue_id, -1)).body.events;
  assert.equal(a.local_message_id, '42.01');
  assert.equal(b.local_message_id, undefined);
});

test('a queue registered with a narrow hears only matching messages; all_public_streams hears public streams', async () => {
  const q = (await register(bob, { event_types: ['message'], narrow: [['stream', 'random']] })).body;
  await sendStream(alice, 'general', 'not for this queue');
  await sendStream(alice, 'random', 'for this queue');
  const events = (await poll(bob, q.queue_id, -1)).body.events;
  assert.deepEqual(events.map((e: any) => e.message.content), ['for this queue']);
  const pub = (await register(carol, { event_types: ['message'], all_public_streams: true })).body;
  await sendStream(alice, 'random', 'carol is not subscribed');
  await sendStream(alice, 'secret', 'never for carol');
  const heard = (await poll(carol, pub.queue_id, -1)).body.events;
  assert.deepEqual(heard.map((e: any) => e.message.content), ['carol is not subscribed']);
  // Zulip's tornado gives these listeners empty flags: the message is not theirs.
  assert.deepEqual(heard[0].flags, []);
});

test('privacy: a guest may not listen to all public streams', async () => {
  const guest = await t.createUser({ name: 'Gwen Guest', role: 600 });
  const r = await register(guest, { all_public_streams: true });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: 'User not authorized for this query', code: 'BAD_REQUEST' });
});

test('privacy: private-stream and private-message events reach nobody outside them', async () => {
  const carolQ = (await register(carol, {})).body;
  await sendStream(alice, 'secret', 'classified');
  await http(alice, 'POST', '/messages', { type: 'private', to: [bob.id], content: 'psst' });
  await sendStream(alice, 'general', 'public');
  const events = (await poll(carol, carolQ.queue_id, -1)).body.events;
  const contents = events.filter((e: any) => e.type === 'message').map((e: any) => e.message.content);
  assert.deepEqual(contents, ['public']);
});

test('BAD_EVENT_QUEUE_ID for unknown, deleted, expired and other users\' queues', async () => {
  const unknown = await poll(alice, 'nope:123', -1);
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body, { result: 'error', msg: 'Bad event queue id: nope:123', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope:123' });
  const q = (await register(alice, {})).body;
  assert.equal((await poll(bob, q.queue_id, -1, { dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.deepEqual((await http(alice, 'DELETE', '/events', { queue_id: q.queue_id })).body, { result: 'success', msg: '' });
  assert.equal((await poll(alice, q.queue_id, -1, { dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal((await http(alice, 'DELETE', '/events', { queue_id: q.queue_id })).body.code, 'BAD_EVENT_QUEUE_ID');
  // queue_lifespan_secs is held between the idle timeout and a week, as Zulip holds it.
  const idle = t.app.ctx.config.queueTimeoutSecs * 1000;
  const short = (await register(alice, { queue_lifespan_secs: 1 })).body;
  const long = (await register(alice, { queue_lifespan_secs: 30 * 86_400 })).body;
  queuesOf(t.app.ctx).collect(Date.now() + idle - 5_000);
  assert.equal((await poll(alice, short.queue_id, -1, { dont_block: true })).status, 200);
  queuesOf(t.app.ctx).collect(Date.now() + idle + 5_000);
  assert.equal((await poll(alice, short.queue_id, -1, { dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  queuesOf(t.app.ctx).collect(Date.now() + 7 * 86_400_000 - 60_000);
  assert.equal((await poll(alice, long.queue_id, -1, { dont_block: true })).status, 200);
  queuesOf(t.app.ctx).collect(Date.now() + 7 * 86_400_000 + 60_000);
  assert.equal((await poll(alice, long.queue_id, -1, { dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal((await http(alice, 'GET', '/events', {})).body.msg, "Missing 'queue_id' argument");
  const anon = await fetch(`${base}/api/v1/events?queue_id=x`);
  assert.equal(anon.status, 401);
});

test('capabilities: without bulk_message_deletion a deleted topic arrives as one event per message', async () => {
  const bulk = (await register(alice, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } })).body;
  const single = (await register(alice, { event_types: ['delete_message'] })).body;
  const a = await http(alice, 'POST', '/messages', { type: 'stream', to: 'random', topic: 'doomed', content: 'one' });
  const b = await http(alice, 'POST', '/messages', { type: 'stream', to: 'random', topic: 'doomed', content: 'two' });
  const streamId = (await http(alice, 'GET', '/get_stream_id', { stream: 'random' })).body.stream_id;
  const del = await http(t.owner, 'POST', `/streams/${streamId}/delete_topic`, { topic_name: 'doomed' });
  assert.equal(del.status, 200, JSON.stringify(del.body));
  const bulkEvents = (await poll(alice, bulk.queue_id, -1)).body.events;
  assert.deepEqual(bulkEvents[0].message_ids.sort(), [a.body.id, b.body.id].sort());
  const singles = (await poll(alice, single.queue_id, -1)).body.events;
  assert.deepEqual(singles.map((e: any) => e.message_id).sort(), [a.body.id, b.body.id].sort());
  assert.ok(singles.every((e: any) => e.message_ids === undefined));
});

test('zulip-js callOnEachEvent receives a message sent by another user', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/events/zulip-js-listener.ts', base, bob.email, bob.apiKey], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  // The listener registers on its own schedule; keep talking until it hears.
  const talker = setInterval(() => void sendStream(alice, 'general', 'hello zulip-js'), 300);
  const code = await exited;
  clearInterval(talker);
  assert.equal(code, 0, out);
  const event = JSON.parse(out.trim().split('\n')[0]!);
  assert.equal(event.type, 'message');
  assert.equal(event.message.content, 'hello zulip-js');
  assert.equal(event.message.sender_email, alice.email);
});

test('capabilities shape the register state: notification_settings_null and user_settings_object', async () => {
  const legacy = (await register(alice, { fetch_event_types: ['subscription', 'update_display_settings', 'update_global_notifications'] })).body;
  const sub = legacy.subscriptions[0];
  assert.equal(typeof sub.desktop_notifications, 'boolean', 'without notification_settings_null, nulls become the user defaults');
  assert.equal(legacy.user_settings, undefined);
  assert.equal(typeof legacy.enter_sends, 'boolean', 'legacy clients read the settings at the top level');
  assert.equal(typeof legacy.twenty_four_hour_time, 'boolean');
  // Asking for user_settings gets the object, capability or not (Zulip's rule); the top-level
  // copy only comes with the legacy types.
  const between = (await register(alice, { fetch_event_types: ['user_settings'] })).body;
  assert.equal(typeof between.user_settings.send_private_typing_notifications, 'boolean');
  assert.equal(between.twenty_four_hour_time, undefined);
  const both = (await register(alice, {})).body;
  assert.equal(typeof both.user_settings.pm_content_in_desktop_notifications, 'boolean');
  assert.equal(typeof both.pm_content_in_desktop_notifications, 'boolean', 'all types, no capability: the legacy copy too');
  const modern = (await register(alice, { fetch_event_types: ['subscription', 'user_settings'], client_capabilities: { notification_settings_null: true, user_settings_object: true } })).body;
  assert.equal(modern.subscriptions[0].desktop_notifications, null);
  assert.equal(typeof modern.user_settings.enter_sends, 'boolean');
  assert.equal(modern.enter_sends, undefined);
  const bad = await register(alice, { client_capabilities: '[1]' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.msg, 'client_capabilities is not a dict');
  const badNarrow = await register(alice, { narrow: [['no-such-operator', 'x']] });
  assert.equal(badNarrow.body.code, 'BAD_NARROW');
});

test('GET /events answers alike on the direct long-poll path and through Fastify', async () => {
  const q = (await register(alice, { event_types: ['message'] })).body;
  await sendStream(bob, 'general', 'direct path');
  const auth = { authorization: basic(alice.email, alice.apiKey) };
  const cases = [
    `queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1&dont_block=true`,
    `queue_id=nope&queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1&dont_block=true`, // a repeated name: the last counts
    'queue_id=nope%3A1&last_event_id=-1',
    `queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=x`,
    `queue_id=${encodeURIComponent(q.queue_id)}&dont_block=maybe`,
    'last_event_id=1',
    'queue_id=%E0%A4%A&last_event_id=-1', // a malformed escape reads the same on both paths
  ];
  for (const query of cases) {
    for (const path of ['/api/v1/events', '/api/v1/events/']) {
      const viaHttp = await fetch(`${base}${path}?${query}`, { headers: auth });
      const viaFastify = await t.app.http.inject({ method: 'GET', url: `${path}?${query}`, headers: { ...auth, host: new URL(base).host } });
      const body = await viaHttp.json();
      assert.equal(viaHttp.status, viaFastify.statusCode, `${path}?${query}`);
      assert.deepEqual(body, viaFastify.json(), `${path}?${query}`);
      assert.match(viaHttp.headers.get('content-type') ?? '', /^application\/json/);
    }
  }
  const events = (await (await fetch(`${base}/api/v1/events?${cases[1]}`, { headers: auth })).json()).events;
  assert.deepEqual(events.map((e: any) => e.message.content), ['direct path']);
  const wrongKey = await fetch(`${base}/api/v1/events?${cases[0]}`, { headers: { authorization: basic(alice.email, 'x'.repeat(32)) } });
  assert.equal(wrongKey.status, 401);
  assert.deepEqual(await wrongKey.json(), { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' });
});

test('a long poll whose login is not yet known authenticates before it parks, and is delivered to', async () => {
  const q = (await register(alice, { event_types: ['message'] })).body;
  // Any change to users retires every remembered login: this poll takes the slow path.
  changedElsewhere();
  const parked = fetch(`${base}/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1`, { headers: { authorization: basic(alice.email, alice.apiKey) } });
  await untilParked(t.app.ctx, q.queue_id, alice.id);
  await sendStream(bob, 'general', 'after a fresh login');
  const body = await (await parked).json();
  assert.deepEqual(body.events.map((e: any) => e.message.content), ['after a fresh login']);
  changedElsewhere();
  const deactivatedKey = await fetch(`${base}/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1`, { headers: { authorization: basic(alice.email, 'y'.repeat(32)) } });
  assert.equal(deactivatedKey.status, 401);
});

test('a client that gets BAD_EVENT_QUEUE_ID re-registers and carries on', async () => {
  const first = (await register(bob, { event_types: ['message'] })).body;
  await http(bob, 'DELETE', '/events', { queue_id: first.queue_id });
  const lost = await poll(bob, first.queue_id, -1, { dont_block: true });
  assert.equal(lost.body.code, 'BAD_EVENT_QUEUE_ID');
  // What the Python client does on that error: register again and resume.
  const again = (await register(bob, { event_types: ['message'] })).body;
  const pending = poll(bob, again.queue_id, again.last_event_id);
  await untilParked(t.app.ctx, again.queue_id, bob.id);
  await sendStream(alice, 'general', 'after re-registering');
  const [e] = (await pending).body.events;
  assert.equal(e.message.content, 'after re-registering');
});

test('a queue narrowed to a stream or person that does not exist (or is hidden) is created and matches nothing', async () => {
  // Zulip only matches events against a queue's narrow, so the Python client's register
  // with such a narrow must not fail (it would retry forever).
  const ghost = await register(bob, { event_types: ['message'], narrow: [['stream', 'nowhere']] });
  assert.equal(ghost.status, 200, JSON.stringify(ghost.body));
  const hidden = await register(bob, { event_types: ['message'], narrow: [['stream', 'secret']] });
  assert.equal(hidden.status, 200, JSON.stringify(hidden.body));
  const nobody = await register(bob, { event_types: ['message'], narrow: [['sender', 'nobody@parley.test']] });
  assert.equal(nobody.status, 200, JSON.stringify(nobody.body));
  const notGhost = await register(bob, { event_types: ['message'], narrow: [{ operator: 'stream', operand: 'nowhere', negated: true }] });
  await sendStream(alice, 'general', 'to everyone');
  await sendStream(alice, 'secret', 'to the secret few');
  for (const q of [ghost, hidden, nobody]) {
    assert.deepEqual((await poll(bob, q.body.queue_id, -1, { dont_block: true })).body.events, []);
  }
  const kept = (await poll(bob, notGhost.body.queue_id, -1, { dont_block: true })).body.events;
  assert.deepEqual(kept.map((e: any) => e.message.content), ['to everyone']);
  // GET /messages still answers Zulip's error for the same narrow.
  const read = await http(bob, 'GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['stream', 'nowhere']] });
  assert.equal(read.body.code, 'BAD_NARROW');
});
