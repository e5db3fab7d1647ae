/**
 * A session of Zulip's phone app against Parley at feature level 277 (the lowest the app
 * accepts) and at the highest level Parley implements (LATEST_FEATURE_LEVEL, 372: Zulip 10.1): every request the app makes, with its parameters as the app sends them, and every
 * answer and event decoded with what the app's own decoders need
 * (test/fixtures/zulip-flutter/decoders.json). The app throws on what it cannot decode, and
 * one undecodable event fails a whole poll, so any problem here is a broken app.
 *
 * Problems not fixed yet are listed in app-session.known-gaps.json: the test fails when a
 * problem off the list appears (a regression) and when one on it is gone (take it off).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { testApp, OWNER_EMAIL, OWNER_PASSWORD, type TestApp, type TestUser } from '../helpers/app.js';
import { postMultipart } from '../helpers/multipart.js';
import { decode, decodeEvent } from './app-decoders.js';
import { LATEST_FEATURE_LEVEL } from '../../src/lib/version.js';

const KNOWN: string[] = JSON.parse(readFileSync(new URL('./app-session.known-gaps.json', import.meta.url), 'utf8'));

let t: TestApp;
let me: TestUser;
let bob: TestUser;
let problems = new Set<string>();
after(() => t?.close());

/** A request as the app makes it, its answer decoded as the app decodes it. */
async function call(cls: string | null, method: string, url: string, params: Record<string, unknown> = {}, as: TestUser | null = me) {
  const r = await t.api(method, `/api/v1${url}`, { as, params });
  assert.equal(r.status, 200, `${method} ${url}: ${JSON.stringify(r.body)}`);
  if (cls) for (const p of decode(cls, r.body)) problems.add(p);
  return r.body;
}

const REGISTER = {
  idle_queue_timeout: 600,
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: true, stream_typing_notifications: true,
    user_settings_object: true, include_deactivated_groups: true, empty_topic_name: true, individual_emoji_changes: true,
  },
};

// 277: the oldest server the app accepts; the newest level Parley implements (past 371, where the app's banner goes).
for (const level of [277, LATEST_FEATURE_LEVEL]) {
  test(`at level ${level}: the app signs in, registers, acts and polls; everything decodes`, async () => {
    await t?.close();
    t = await testApp({ featureLevel: level });
    me = t.owner;
    bob = await t.createUser({ name: 'Bob Mobile' });
    problems = new Set<string>();
    await session(level);
  });
}

async function session(level: number) {
  const settings = await call('GetServerSettingsResult', 'GET', '/server_settings', {}, null);
  assert.equal(settings.zulip_feature_level, level);
  await call('FetchApiKeyResult', 'POST', '/fetch_api_key', { username: OWNER_EMAIL, password: OWNER_PASSWORD }, null);
  await call('GetOwnUserResult', 'GET', '/users/me');
  const snapshot = await call('InitialSnapshot', 'POST', '/register', REGISTER);
  const emojiData = await fetch(snapshot.server_emoji_data_url).catch(() => undefined);
  if (emojiData) for (const p of decode('ServerEmojiData', await emojiData.json())) problems.add(p);

  // Device tokens at sign-in (below level 468).
  await call(null, 'POST', '/users/me/android_gcm_reg_id', { token: 'f'.repeat(152) });
  await call(null, 'POST', '/users/me/apns_device_token', { token: 'a'.repeat(64), appid: 'org.zulip.Zulip' });

  // A stream and a conversation.
  await call(null, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'mobile' }], principals: [me.id, bob.id] });
  const streamId = (await call(null, 'GET', '/get_stream_id', { stream: 'mobile' })).stream_id as number;
  const sent = await call('SendMessageResult', 'POST', '/messages', {
    type: 'channel', to: streamId, topic: 'phones', content: 'hello from the app', queue_id: snapshot.queue_id, local_id: '1.1', read_by_sender: true,
  });
  await call('SendMessageResult', 'POST', '/messages', { type: 'direct', to: [bob.id], content: 'dm', read_by_sender: true });
  const fromBob = await call('SendMessageResult', 'POST', '/messages', { type: 'channel', to: streamId, topic: 'phones', content: '@**all** and @**Owner** look' }, bob);
  await call('SendMessageResult', 'POST', '/messages', { type: 'direct', to: [me.id], content: 'psst' }, bob);

  // Reading, as the app's message list does.
  const narrows = [
    [{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: 'phones' }],
    [{ operator: 'dm', operand: [bob.id] }],
    [{ operator: 'is', operand: 'dm' }],
    [{ operator: 'is', operand: 'mentioned' }],
    [{ operator: 'is', operand: 'starred' }],
    [{ operator: 'with', operand: fromBob.id }],
    [{ operator: 'search', operand: 'look' }],
  ];
  for (const narrow of narrows) {
    await call('GetMessagesResult', 'GET', '/messages', { narrow: JSON.stringify(narrow), anchor: 'newest', include_anchor: false, num_before: 50, num_after: 0, client_gravatar: false, apply_markdown: true, allow_empty_topic_name: true });
  }
  await call('GetMessagesResult', 'GET', '/messages', { narrow: '[]', anchor: 'first_unread', num_before: 20, num_after: 20, allow_empty_topic_name: true });
  await call('GetMessageResult', 'GET', `/messages/${fromBob.id}`, { apply_markdown: true, allow_empty_topic_name: true });

  // Acting on messages.
  await call(null, 'POST', `/messages/${fromBob.id}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  await call(null, 'DELETE', `/messages/${fromBob.id}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  await call('UpdateMessageFlagsResult', 'POST', '/messages/flags', { messages: [fromBob.id], op: 'add', flag: 'starred' });
  await call('UpdateMessageFlagsResult', 'POST', '/messages/flags', { messages: [fromBob.id], op: 'remove', flag: 'read' });
  await call('UpdateMessageFlagsForNarrowResult', 'POST', '/messages/flags/narrow', {
    anchor: 'oldest', include_anchor: true, num_before: 0, num_after: 1000, op: 'add', flag: 'read',
    narrow: JSON.stringify([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: 'phones' }]),
  });
  await call('GetReadReceiptsResult', 'GET', `/messages/${sent.id}/read_receipts`);
  await call('UpdateMessageResult', 'PATCH', `/messages/${sent.id}`, { content: 'hello, edited' });
  await call('UpdateMessageResult', 'PATCH', `/messages/${sent.id}`, { topic: 'moved', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: true });
  const upload = await postMultipart(t, '/api/v1/user_uploads', me, [{ field: 'file', filename: 'note.txt', content: 'attached' }]);
  for (const p of decode('UploadFileResult', upload.body)) problems.add(p);
  await call(null, 'POST', '/typing', { type: 'channel', op: 'start', stream_id: streamId, topic: 'moved' });
  await call(null, 'POST', '/typing', { type: 'direct', op: 'start', to: [bob.id] }, bob);
  await call(null, 'POST', '/typing', { type: 'direct', op: 'stop', to: [bob.id] }, bob);
  await call(null, 'POST', '/messages', { type: 'direct', to: [bob.id], content: 'to delete' }).then((m) => call(null, 'DELETE', `/messages/${m.id}`));

  // Conversations and settings.
  await call('GetChannelTopicsResult', 'GET', `/users/me/${streamId}/topics`, { allow_empty_topic_name: true });
  await call(null, 'POST', '/user_topics', { stream_id: streamId, topic: 'moved', visibility_policy: 3 });
  await call(null, 'POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: streamId, property: 'is_muted', value: true }, { stream_id: streamId, property: 'pin_to_top', value: true }, { stream_id: streamId, property: 'push_notifications', value: false }] });
  await call(null, 'PATCH', '/settings', { twenty_four_hour_time: true, display_emoji_reaction_users: false, starred_message_counts: true, emojiset: 'google', presence_enabled: true });
  await call(null, 'POST', '/users/me/status', { status_text: 'on the phone', emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  await call('UpdatePresenceResult', 'POST', '/users/me/presence', { status: 'active', slim_presence: true, last_update_id: -1, history_limit_days: 14, new_user_input: true, ping_only: false });
  await call(null, 'POST', '/users/me/presence', { status: 'idle', slim_presence: true }, bob);
  await call(null, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'mobile two' }], principals: [me.id] });
  await call(null, 'DELETE', '/users/me/subscriptions', { subscriptions: ['mobile two'] });

  // Things the app hears about from others.
  await call(null, 'POST', '/users/me/alert_words', { alert_words: ['phone'] });
  await call(null, 'POST', '/users/me/muted_users/' + bob.id);
  await call(null, 'POST', '/user_groups/create', { name: 'phones', description: 'group', members: [me.id] });
  const other = await t.createUser({ name: 'Carol Later' });
  await call(null, 'PATCH', `/users/${other.id}`, { full_name: 'Carol Renamed' });
  await call(null, 'DELETE', `/users/${other.id}`);
  await call(null, 'POST', `/users/${other.id}/reactivate`);

  const polled = await call('GetEventsResult', 'GET', '/events', { queue_id: snapshot.queue_id, last_event_id: -1, dont_block: true });
  const seen = new Set<string>();
  for (const e of polled.events as Array<Record<string, unknown>>) {
    seen.add(`${String(e.type)}${e.op ? `/${String(e.op)}` : ''}`);
    for (const p of decodeEvent(e)) problems.add(p);
  }
  // The session exercised what it meant to: these kinds reached the app's queue.
  for (const kind of ['message', 'update_message', 'delete_message', 'reaction/add', 'reaction/remove', 'typing/start', 'presence', 'user_topic', 'subscription/update', 'update_message_flags/add', 'update_message_flags/remove', 'user_settings/update', 'user_status', 'alert_words', 'muted_users', 'user_group/add', 'realm_user/update']) {
    assert.ok(seen.has(kind), `no ${kind} event (${[...seen].join(', ')})`);
  }
  const echoed = (polled.events as Array<Record<string, any>>).find((e) => e.type === 'message' && e.message.id === sent.id);
  assert.equal(echoed?.local_message_id, '1.1', 'the outbox clears only when the message event echoes local_message_id');

  const found = [...problems].sort();
  const fresh = found.filter((p) => !KNOWN.includes(p));
  const fixed = KNOWN.filter((p) => !problems.has(p));
  assert.deepEqual(fresh, [], 'the app cannot decode these (new problems)');
  assert.deepEqual(fixed, [], 'these known gaps are fixed: take them off app-session.known-gaps.json');
}

test('the check refuses what the app refuses: a missing key, a wrong type, an unknown strict value', () => {
  assert.ok(decode('InitialSnapshot', {}).includes('InitialSnapshot.user_topics: missing'));
  assert.deepEqual(decodeEvent({ type: 'user_topic', id: 1, stream_id: 1, topic_name: 't', last_updated: 1, visibility_policy: 4 }),
    ['UserTopicEvent(user_topic).visibility_policy: 4 is not a UserTopicVisibilityPolicy']);
  assert.deepEqual(decodeEvent({ type: 'update_message', id: 1, message_id: 1, message_ids: [1], flags: ['read', 'frobbed'], edit_timestamp: 1 }),
    ['UpdateMessageEvent(update_message).rendering_only: missing', 'UpdateMessageEvent(update_message).flags[1]: "frobbed" is not a MessageFlag']);
  assert.deepEqual(decodeEvent({ type: 'subscription', op: 'update', id: 1, stream_id: 1, property: 'push_notifications', value: null }),
    ['SubscriptionUpdateEvent(subscription/update).value: null for push_notifications']);
  assert.deepEqual(decodeEvent({ type: 'some_future_event', id: 1 }), []);
  // GroupSettingValue: a named group's id or an anonymous group, nothing else.
  const groups = (v: unknown) => decode('InitialSnapshot', { realm_can_delete_any_message_group: v }).filter((p) => p.includes('realm_can_delete_any_message_group'));
  assert.deepEqual(groups(11), []);
  assert.deepEqual(groups({ direct_members: [1], direct_subgroups: [] }), []);
  assert.deepEqual(groups({ direct_members: [1] }), ['InitialSnapshot.realm_can_delete_any_message_group.direct_subgroups: missing']);
  assert.deepEqual(groups('11'), ['InitialSnapshot.realm_can_delete_any_message_group: neither a group id nor {direct_members, direct_subgroups}']);
});
