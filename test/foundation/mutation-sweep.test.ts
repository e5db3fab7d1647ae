import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, basic, FEATURE_LEVEL, HOST, encodeParams, type TestApp, type TestUser } from '../helpers/app.js';
import { routes } from '../../src/http/routes.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';
import { Role } from '../../src/lib/roles.js';
import { createWebhookBot } from '../helpers/webhooks.js';

/**
 * The random fuzz (fuzz.test.ts) rarely gets past the first missing argument. Here every
 * route starts from a request that succeeds, and each of its parameters and path segments
 * is replaced in turn by each awkward value: wrong JSON types, out-of-range numbers, NUL,
 * huge strings, names every JavaScript object has. Whatever arrives, the answer is the
 * JSON envelope and never a 500.
 */
let t: TestApp;
let member: TestUser;
let streamId: number;
let messageId: number;
let spareId: number;
let doomedId: number;
let queueId: string;
let draftId: number;
let scheduledId: number;
let snippetId: number;
let groupId: number;
let subGroupId: number;
let fieldId: number;
let linkifierId: number;
let hookKey: string;
let botId: number;
let inviteId: number;
let multiuseId: number;

const AWKWARD = [
  '', ' ', '0', '-1', '1.5', '1e3', '9007199254740993', '99999999999999999999', 'NaN', 'true', 'false', 'null',
  '[]', '{}', '[null]', '[[]]', '[{}]', '"text"', '[1,"a"]', '[-1]', '[0]', '[99999999999]', '{"a":[]}', '[true]',
  'constructor', '__proto__', 'toString', '\u0000', 'a\u0000b', '💥'.repeat(500), 'x'.repeat(70_000), '<script>alert(1)</script>', '%',
  '[{"operator":"stream","operand":{}}]', '[{"operator":{},"operand":"x"}]', '[["stream"]]', '[{"name":{}}]', '[{"name":"x","description":[]}]',
  '[{"stream_id":"1","property":"color","value":[]}]', '[{"stream_id":1,"property":"constructor","value":1}]', '{"notification_settings_null":"yes"}',
];
const AWKWARD_SEGMENTS = ['0', '-1', '99999999999999999999', 'abc', '1.5', 'constructor', '%00', 'me', '%E2%98%83'];

type Call = { method: string; path: string; params: Record<string, unknown>; expectError?: true };

/** One request per route that succeeds for the owner (or fails only on purpose-neutral grounds). */
function baselines(): Call[] {
  const s = String(streamId);
  return [
    { method: 'GET', path: '/server_settings', params: {} },
    { method: 'POST', path: '/fetch_api_key', params: { username: member.email, password: 'member-password-1' } },
    { method: 'GET', path: '/users', params: { client_gravatar: true, include_custom_profile_fields: true } },
    { method: 'GET', path: `/users/${member.id}`, params: { client_gravatar: false } },
    { method: 'GET', path: '/users/me', params: {} },
    { method: 'POST', path: '/users', params: { email: 'sweep@parley.test', password: 'pw-123456789', full_name: 'Sweep', short_name: 'sweep' } },
    { method: 'PATCH', path: `/users/${member.id}`, params: { full_name: 'Member Renamed', role: 400 } },
    { method: 'POST', path: '/bots', params: { full_name: 'Sweep Bot', short_name: 'sweepbot', bot_type: 1, default_sending_stream: 'general', default_events_register_stream: 'general', default_all_public_streams: false } },
    { method: 'GET', path: '/bots', params: {} },
    { method: 'PATCH', path: `/bots/${botId}`, params: { full_name: 'Sweep Managed Two', role: 400, bot_owner_id: t.owner.id, default_sending_stream: 'general', default_events_register_stream: '', default_all_public_streams: true, service_payload_url: 'http://localhost/sweep', service_interface: 2 } },
    { method: 'POST', path: `/bots/${botId}/api_key/regenerate`, params: {} },
    { method: 'DELETE', path: `/bots/${botId}`, params: {} },
    { method: 'PUT', path: '/bot_storage', params: { storage: { k: 'v', other: 'w' } } },
    { method: 'GET', path: '/bot_storage', params: { keys: ['k'] } },
    { method: 'DELETE', path: '/bot_storage', params: { keys: ['k'] } },
    { method: 'GET', path: '/users/me/subscriptions', params: { include_subscribers: true } },
    { method: 'POST', path: '/users/me/subscriptions', params: { subscriptions: [{ name: 'sweep-stream', description: 'd' }], principals: [member.id], invite_only: false, announce: false } },
    { method: 'PATCH', path: '/users/me/subscriptions', params: { add: [{ name: 'sweep-other' }], delete: ['sweep-stream'] } },
    { method: 'DELETE', path: '/users/me/subscriptions', params: { subscriptions: ['sweep-other'], principals: [member.email] } },
    { method: 'GET', path: `/users/${member.id}/subscriptions/${s}`, params: {} },
    { method: 'POST', path: '/users/me/subscriptions/properties', params: { subscription_data: [{ stream_id: streamId, property: 'color', value: '#aabbcc' }] } },
    { method: 'PATCH', path: '/users/me/subscriptions/muted_topics', params: { stream_id: streamId, topic: 'sweep', op: 'add' } },
    { method: 'POST', path: '/user_topics', params: { stream_id: streamId, topic: 'sweep followed', visibility_policy: 3 } },
    { method: 'GET', path: '/streams', params: { include_public: true, include_subscribed: true, include_all_active: true, include_default: true } },
    { method: 'GET', path: `/streams/${s}`, params: {} },
    { method: 'GET', path: '/get_stream_id', params: { stream: 'general' } },
    { method: 'GET', path: `/streams/${s}/members`, params: {} },
    { method: 'GET', path: `/streams/${s}/email_address`, params: {} },
    { method: 'PATCH', path: `/streams/${s}`, params: { description: 'swept', is_private: false, stream_post_policy: 1, history_public_to_subscribers: true, message_retention_days: '"unlimited"' } },
    { method: 'POST', path: `/streams/${s}/delete_topic`, params: { topic_name: 'nothing here' } },
    { method: 'GET', path: `/users/me/${s}/topics`, params: {} },
    { method: 'GET', path: '/default_streams', params: {} },
    { method: 'POST', path: '/default_streams', params: { stream_id: streamId } },
    { method: 'DELETE', path: '/default_streams', params: { stream_id: streamId } },
    { method: 'POST', path: '/messages/render', params: { content: '**hi** @**Member Renamed** #**general** :smile:' } },
    { method: 'POST', path: '/users/me/presence', params: { status: 'active', ping_only: false, new_user_input: true, slim_presence: true } },
    { method: 'GET', path: '/realm/presence', params: {} },
    { method: 'GET', path: `/users/${t.owner.id}/presence`, params: {} },
    { method: 'POST', path: '/messages', params: { type: 'stream', to: 'general', topic: 'sweep', content: 'hello @**all**', queue_id: 'q', local_id: '1' } },
    { method: 'POST', path: '/messages', params: { type: 'private', to: [member.id], content: 'psst' } },
    { method: 'GET', path: '/messages', params: { anchor: 'newest', num_before: 5, num_after: 5, narrow: [{ operator: 'stream', operand: 'general' }, { operator: 'search', operand: 'hello' }], apply_markdown: false, client_gravatar: true, include_anchor: true } },
    { method: 'GET', path: `/messages/${messageId}`, params: { apply_markdown: true } },
    { method: 'GET', path: '/messages/matches_narrow', params: { msg_ids: [messageId], narrow: [{ operator: 'search', operand: 'hello' }] } },
    { method: 'GET', path: '/users/me/alert_words', params: {} },
    { method: 'POST', path: '/users/me/alert_words', params: { alert_words: ['sweep'] } },
    { method: 'DELETE', path: '/users/me/alert_words', params: { alert_words: ['sweep'] } },
    { method: 'POST', path: '/users/me/status', params: { status_text: 'sweeping', away: true, emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' } },
    { method: 'GET', path: `/users/${member.id}/status`, params: {} },
    { method: 'POST', path: `/users/me/muted_users/${member.id}`, params: {} },
    { method: 'DELETE', path: `/users/me/muted_users/${member.id}`, params: {} },
    { method: 'GET', path: '/user_groups', params: {} },
    { method: 'POST', path: '/user_groups/create', params: { name: 'sweep-group', description: 'swept', members: [member.id] } },
    { method: 'PATCH', path: `/user_groups/${groupId}`, params: { name: 'sweep-renamed', description: 'renamed' } },
    { method: 'POST', path: `/user_groups/${groupId}/members`, params: { add: [t.owner.id], delete: [member.id] } },
    { method: 'GET', path: `/user_groups/${groupId}/members`, params: { direct_member_only: false } },
    { method: 'GET', path: `/user_groups/${groupId}/members/${member.id}`, params: { direct_member_only: true } },
    { method: 'POST', path: `/user_groups/${groupId}/subgroups`, params: { add: [subGroupId] } },
    { method: 'GET', path: `/user_groups/${groupId}/subgroups`, params: { direct_subgroup_only: true } },
    { method: 'POST', path: `/user_groups/${groupId}/subgroups`, params: { delete: [subGroupId] } },
    // Level 290: the subgroup, in use no more, is deactivated.
    { method: 'POST', path: `/user_groups/${subGroupId}/deactivate`, params: {} },
    { method: 'DELETE', path: `/user_groups/${groupId}`, params: {} },
    { method: 'GET', path: '/realm/profile_fields', params: {} },
    // Before any other field exists: the order must list them all.
    { method: 'PATCH', path: '/realm/profile_fields', params: { order: [fieldId] } },
    { method: 'POST', path: '/realm/profile_fields', params: { name: 'Sweep field', hint: 'h', field_type: 3, field_data: { a: { text: 'A', order: '1' } } } },
    { method: 'PATCH', path: `/realm/profile_fields/${fieldId}`, params: { name: 'Swept field', hint: 'hh' } },
    { method: 'PATCH', path: '/users/me/profile_data', params: { data: [{ id: fieldId, value: 'swept' }] } },
    { method: 'PATCH', path: `/users/${member.id}`, params: { profile_data: [{ id: fieldId, value: 'by admin' }] } },
    { method: 'DELETE', path: '/users/me/profile_data', params: { data: [fieldId] } },
    { method: 'DELETE', path: `/realm/profile_fields/${fieldId}`, params: {} },
    { method: 'POST', path: '/register', params: { event_types: ['message'], narrow: [['stream', 'general']], all_public_streams: false, client_capabilities: { notification_settings_null: true }, queue_lifespan_secs: 60, fetch_event_types: ['realm_user', 'subscription'] } },
    // A queue of the owner's own, registered in before().
    { method: 'GET', path: '/events', params: { queue_id: queueId, last_event_id: -1, dont_block: true } },
    { method: 'DELETE', path: '/events', params: { queue_id: queueId } },
    { method: 'POST', path: '/typing', params: { type: 'stream', op: 'start', to: [streamId], topic: 'sweep' } },
    // Levels 351/361: typing while editing, under both names.
    { method: 'POST', path: '/message_edit_typing', params: { op: 'start', message_id: messageId } },
    { method: 'POST', path: `/messages/${messageId}/typing`, params: { op: 'stop' } },
    { method: 'PATCH', path: `/messages/${messageId}`, params: { content: 'edited **hello**', topic: 'swept', propagate_mode: 'change_one', send_notification_to_old_thread: false, send_notification_to_new_thread: true } },
    { method: 'PATCH', path: `/messages/${messageId}`, params: { stream_id: doomedId, propagate_mode: 'change_all' } },
    { method: 'GET', path: `/messages/${messageId}/history`, params: {} },
    { method: 'GET', path: `/messages/${messageId}/read_receipts`, params: {} },
    { method: 'POST', path: '/messages/flags', params: { messages: [messageId], op: 'add', flag: 'starred' } },
    { method: 'POST', path: '/mark_all_as_read', params: {} },
    { method: 'POST', path: '/mark_stream_as_read', params: { stream_id: streamId } },
    { method: 'POST', path: '/mark_topic_as_read', params: { stream_id: streamId, topic_name: 'sweep' } },
    { method: 'POST', path: `/messages/${messageId}/reactions`, params: { emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' } },
    { method: 'DELETE', path: `/messages/${messageId}/reactions`, params: { emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' } },
    { method: 'DELETE', path: `/messages/${spareId}`, params: {} },
    { method: 'PATCH', path: '/settings', params: { enter_sends: true, color_scheme: 2, timezone: 'UTC', default_language: 'fr', notification_sound: 'ding', email_notifications_batching_period_seconds: 600, full_name: 'Swept Owner' } },
    { method: 'PATCH', path: '/settings/display', params: { twenty_four_hour_time: true, emojiset: 'twitter', demote_inactive_streams: 2 } },
    { method: 'PATCH', path: '/settings/notifications', params: { enable_sounds: false, desktop_icon_count_display: 2 } },
    { method: 'PATCH', path: '/realm', params: { name: 'Swept Org', description: 'A **swept** org', edit_topic_policy: 5, allow_message_editing: true, message_content_edit_limit_seconds: 600, message_retention_days: 'unlimited', message_content_delete_limit_seconds: 'unlimited', notifications_stream_id: streamId, default_language: 'en', wildcard_mention_policy: 5 } },
    { method: 'PATCH', path: '/realm/user_settings_defaults', params: { enter_sends: true, color_scheme: 2, emojiset: 'twitter', notification_sound: 'ding' } },
    { method: 'DELETE', path: `/streams/${doomedId}`, params: {} },
    { method: 'DELETE', path: `/users/${member.id}`, params: { deactivation_notification_comment: 'swept' } },
    { method: 'POST', path: `/users/${member.id}/reactivate`, params: {} },
    { method: 'GET', path: '/drafts', params: {} },
    { method: 'POST', path: '/drafts', params: { drafts: [{ type: 'stream', to: [streamId], topic: 'sweep', content: 'draft', timestamp: 1595479019 }] } },
    { method: 'PATCH', path: `/drafts/${draftId}`, params: { draft: { type: 'private', to: [member.id], topic: '', content: 'edited draft' } } },
    { method: 'DELETE', path: `/drafts/${draftId}`, params: {} },
    { method: 'GET', path: '/scheduled_messages', params: {} },
    { method: 'GET', path: '/saved_snippets', params: {} },
    { method: 'POST', path: '/saved_snippets', params: { title: 'Sweep', content: 'a snippet' } },
    { method: 'PATCH', path: `/saved_snippets/${snippetId}`, params: { title: 'Sweep two', content: 'edited' } },
    { method: 'DELETE', path: `/saved_snippets/${snippetId}`, params: {} },
    { method: 'POST', path: '/scheduled_messages', params: { type: 'stream', to: s, topic: 'sweep', content: 'later', scheduled_delivery_timestamp: 4_102_444_800 } },
    { method: 'PATCH', path: `/scheduled_messages/${scheduledId}`, params: { content: 'later, edited', scheduled_delivery_timestamp: 4_102_444_900 } },
    { method: 'DELETE', path: `/scheduled_messages/${scheduledId}`, params: {} },
    { method: 'GET', path: '/realm/linkifiers', params: {} },
    { method: 'GET', path: '/realm/filters', params: {} },
    { method: 'POST', path: '/realm/filters', params: { pattern: 'SWEEP-(?P<id>[0-9]+)', url_format_string: 'https://sweep.example.com/%(id)s' } },
    { method: 'PATCH', path: `/realm/filters/${linkifierId}`, params: { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://bugs.example.com/%(id)s' } },
    { method: 'DELETE', path: `/realm/filters/${linkifierId}`, params: {} },
    // The list must name every linkifier: which ones exist depends on the sweep so far.
    { method: 'PATCH', path: '/realm/linkifiers', params: { ordered_linkifier_ids: [linkifierId] }, expectError: true },
    { method: 'POST', path: '/users/me/onboarding_steps', params: { onboarding_step: 'visibility_policy_banner' } },
    // A form body carries no file: refused, but every awkward field beside it must still be answered.
    { method: 'POST', path: '/user_uploads', params: { note: 'no file here' }, expectError: true },
    { method: 'GET', path: '/attachments', params: {} },
    { method: 'DELETE', path: '/attachments/1', params: {}, expectError: true },
    { method: 'GET', path: '/realm/emoji', params: {} },
    // An emoji name of digits (valid) so that the sweep also mutates the segment; no file in a form body.
    { method: 'POST', path: '/realm/emoji/123', params: { note: 'no file here' }, expectError: true },
    { method: 'DELETE', path: '/realm/emoji/123', params: {}, expectError: true },
    { method: 'POST', path: '/realm/icon', params: { note: 'no file here' }, expectError: true },
    { method: 'DELETE', path: '/realm/icon', params: {} },
    { method: 'POST', path: '/realm/playgrounds', params: { name: 'Sweep playground', pygments_language: 'python',
      ...(FEATURE_LEVEL >= 196 ? { url_template: 'https://sweep.example.com/?code={code}' } : { url_prefix: 'https://sweep.example.com/?code=' }) } },
    { method: 'DELETE', path: '/realm/playgrounds/123456', params: {}, expectError: true },
    { method: 'POST', path: '/users/me/avatar', params: { note: 'no file here' }, expectError: true },
    { method: 'DELETE', path: '/users/me/avatar', params: {} },
    // An incoming webhook: the bot's key as a parameter (the caller's basic auth is not its credential).
    { method: 'POST', path: '/external/helloworld', params: { api_key: hookKey, stream: 'general', topic: 'sweep', featured_title: 'Sweep', featured_url: 'https://example.com/sweep' } },
    { method: 'POST', path: '/invites', params: { invitee_emails: 'sweep-invitee@example.com', stream_ids: [streamId], invite_as: 400, invite_expires_in_days: 3 } },
    { method: 'GET', path: '/invites', params: {} },
    { method: 'POST', path: `/invites/${inviteId}/resend`, params: {} },
    { method: 'DELETE', path: `/invites/${inviteId}`, params: {} },
    { method: 'POST', path: '/invites/multiuse', params: { invite_as: 600, stream_ids: [streamId], invite_expires_in_minutes: 60 } },
    { method: 'DELETE', path: `/invites/multiuse/${multiuseId}`, params: {} },
    { method: 'POST', path: '/users/me/apns_device_token', params: { token: 'c3dlZXAtYXBucw==', appid: 'org.zulip.Zulip' } },
    { method: 'DELETE', path: '/users/me/apns_device_token', params: { token: 'c3dlZXAtYXBucw==' } },
    { method: 'POST', path: '/users/me/android_gcm_reg_id', params: { token: 'sweep-fcm-token' } },
    { method: 'DELETE', path: '/users/me/android_gcm_reg_id', params: { token: 'sweep-fcm-token' } },
    { method: 'POST', path: '/messages/flags/narrow', params: { anchor: 'newest', include_anchor: true, num_before: 10, num_after: 0, narrow: [{ operator: 'stream', operand: 'general' }], op: 'add', flag: 'read' } },
    { method: 'POST', path: '/users/me/api_key/regenerate', params: {} },
    // Last: the owner is the only owner, so this is refused, but should it ever succeed nothing follows.
    { method: 'DELETE', path: '/users/me', params: {}, expectError: true },
  ];
}

before(async () => {
  t = await testApp();
  member = await t.createUser({ name: 'Member', password: 'member-password-1' });
  const stream = await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, 'general', [t.owner.row, member.row]));
  streamId = stream.id;
  doomedId = (await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, t.realm, 'doomed', [t.owner.row]))).id;
  const sent = await t.api('POST', '/api/v1/messages', { params: { type: 'stream', to: 'general', topic: 'sweep', content: 'hello' } });
  messageId = sent.body.id;
  spareId = (await t.api('POST', '/api/v1/messages', { params: { type: 'stream', to: 'general', topic: 'sweep', content: 'spare' } })).body.id;
  queueId = (await t.api('POST', '/api/v1/register', { params: { event_types: ['message'] } })).body.queue_id;
  linkifierId = (await t.api('POST', '/api/v1/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://trac.example.com/%(id)s' } })).body.id;
  snippetId = (await t.api('POST', '/api/v1/saved_snippets', { params: { title: 'Swept', content: 'swept' } })).body.saved_snippet_id;
  scheduledId = (await t.api('POST', '/api/v1/scheduled_messages', { params: { type: 'private', to: JSON.stringify([member.id]), content: 'swept', scheduled_delivery_timestamp: 4_102_444_800 } })).body.scheduled_message_id;
  draftId = (await t.api('POST', '/api/v1/drafts', { params: { drafts: [{ type: '', to: [], topic: '', content: 'swept' }] } })).body.ids[0];
  await t.api('POST', '/api/v1/user_groups/create', { params: { name: 'sweep-base', description: '', members: [member.id] } });
  groupId = groupNamed((await t.api('GET', '/api/v1/user_groups')).body.user_groups, 'sweep-base');
  await t.api('POST', '/api/v1/user_groups/create', { params: { name: 'sweep-sub', description: '', members: [] } });
  subGroupId = groupNamed((await t.api('GET', '/api/v1/user_groups')).body.user_groups, 'sweep-sub');
  fieldId = (await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Sweep base', field_type: 1 } })).body.id;
  hookKey = (await createWebhookBot(t)).apiKey;
  botId = (await t.api('POST', '/api/v1/bots', { params: { full_name: 'Sweep Managed', short_name: 'managed', bot_type: 3, payload_url: 'http://localhost/hook' } })).body.user_id;
  await t.api('POST', '/api/v1/invites', { params: { invitee_emails: 'sweep-base@example.com', stream_ids: [streamId] } });
  await t.api('POST', '/api/v1/invites/multiuse', { params: {} });
  const invites = (await t.api('GET', '/api/v1/invites')).body.invites;
  inviteId = invites.find((i: any) => !i.is_multiuse).id;
  multiuseId = invites.find((i: any) => i.is_multiuse).id;
});
after(() => t.close());

async function currentKey(user: TestUser): Promise<string> {
  // POST /users/me/api_key/regenerate changes it under the sweep.
  return (await t.app.ctx.store.db.selectFrom('users').select('api_key').where('id', '=', user.id).executeTakeFirstOrThrow()).api_key;
}

/** A group's id by name: the list may also hold system groups (which nobody may edit), so its order says nothing. */
function groupNamed(groups: Array<{ id: number; name: string }>, name: string): number {
  const group = groups.find((g) => g.name === name);
  assert.ok(group, `no user group named ${name}`);
  return group.id;
}

async function send(call: Call, raw: Record<string, string>, as: TestUser = t.owner): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { host: HOST, authorization: basic(as.email, await currentKey(as)) };
  const body = new URLSearchParams(raw).toString();
  const url = `/api/v1${call.path}`;
  const res = call.method === 'GET'
    ? await t.app.http.inject({ method: 'GET', url: `${url}?${body}`, headers })
    : await t.app.http.inject({ method: call.method as 'POST', url, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
  const what = `${call.method} ${url} ${body.slice(0, 200)}`;
  assert.ok(res.statusCode < 500, `${what} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
  const json = res.json();
  assert.ok(json.result === 'success' || json.result === 'error', `${what}: ${res.body.slice(0, 300)}`);
  return { status: res.statusCode, body: res.body };
}

const asStrings = (params: Record<string, unknown>) =>
  Object.fromEntries(new URLSearchParams(encodeParams(params)).entries());

test('every route, every parameter and path segment replaced by awkward values: never a 500', { timeout: 300_000 }, async () => {
  const calls = baselines();
  // An integration's name stands for the route's one path parameter.
  const covered = new Set(calls.map((c) => `${c.method} ${c.path.replace(/\/(\d+)(?=\/|$)/g, '/:n').replace(/^\/external\/[a-z_]+$/, '/external/:n')}`));
  // Every route of the table has a baseline here, so new endpoints join the sweep.
  // Pages outside the API (a confirmation link's target) answer HTML and are tested with their feature;
  // so are file downloads (a wildcard path answering bytes or HTML: test/uploads).
  for (const r of routes.filter((x) => x.prefix === undefined && x.only !== 'web' && !x.path.includes('*'))) {
    const shape = `${r.method} ${r.path.replace(/:[a-z_]+/g, ':n')}`;
    assert.ok(covered.has(shape), `no sweep baseline for ${r.method} ${r.path}`);
  }
  for (const call of calls) {
    const base = asStrings(call.params);
    // The baseline itself must pass, or its mutations would only test the first check.
    const first = await send(call, base);
    if (!call.expectError) assert.equal(first.status, 200, `baseline ${call.method} ${call.path}: ${first.body.slice(0, 300)}`);
    for (const key of Object.keys(base)) {
      for (const value of AWKWARD) await send(call, { ...base, [key]: value });
    }
    const segments = call.path.split('/');
    for (const [i, seg] of segments.entries()) {
      if (!/^\d+$/.test(seg)) continue;
      for (const value of AWKWARD_SEGMENTS) await send({ ...call, path: [...segments.slice(0, i), value, ...segments.slice(i + 1)].join('/') }, base);
    }
  }
});

test('the same sweep as a member and as a guest: their refusals are never a 500 either', { timeout: 300_000 }, async () => {
  for (const role of [Role.MEMBER, Role.GUEST]) {
    const as = await t.createUser({ role });
    await transact(t.app.ctx, async (tx) => { await createStreamWithSubscribers(tx, t.realm, `room-${as.id}`, [as.row]); });
    for (const call of baselines()) {
      const base = asStrings(call.params);
      await send(call, base, as);
      for (const key of Object.keys(base)) {
        for (const value of AWKWARD) await send(call, { ...base, [key]: value }, as);
      }
    }
  }
});
