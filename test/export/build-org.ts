/** An organization with every kind of row Parley keeps, made through the API: what export tests and the round trip start from. */
import sharp from 'sharp';
import { asTestUser, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { postMultipart, uploadOne } from '../helpers/multipart.js';
import { subscribe } from '../helpers/streams.js';

export interface Org {
  hookBot: TestUser;
  alice: TestUser; bob: TestUser; carol: TestUser; dave: TestUser; bot: TestUser;
  general: number; secret: number; old: number;
  edited: number; secretMsg: number; dm: number; groupDm: number; uploadPath: string;
}

/** An organization of every kind of row, made through the API. */
export async function buildOrg(t: TestApp): Promise<Org> {
  const { alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave'));
  const bot = await t.createBot(alice, { fullName: 'Helper', shortName: 'helper' });
  const general = await subscribe(t, alice, 'general', { principals: [alice.id, bob.id, carol.id] });
  const secret = await subscribe(t, alice, 'secret', { invite_only: true, principals: [alice.id, carol.id] });
  const old = await subscribe(t, alice, 'old', { principals: [alice.id] });
  await sendMessage(t, alice, { type: 'stream', to: 'old', topic: 'bygone', content: 'from the past' });
  assertOk(await t.api('DELETE', `/api/v1/streams/${old}`));

  const edited = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'plans', content: 'hello @**Bob Jones**' });
  assertOk(await t.api('PATCH', `/api/v1/messages/${edited}`, { as: alice, params: { content: 'hello again @**Bob Jones**' } }));
  const uploadPath = (await uploadOne(t, alice, 'notes.txt', 'private bytes')).replace(/^.*\/user_uploads\//, '');
  const secretMsg = await sendMessage(t, alice, { type: 'stream', to: 'secret', topic: 'hush', content: `see [notes](/user_uploads/${uploadPath})` });
  const dm = await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'just us' });
  const groupDm = await sendMessage(t, bob, { type: 'private', to: JSON.stringify([alice.id, carol.id]), content: 'the three of us' });

  const png = await sharp({ create: { width: 20, height: 20, channels: 4, background: '#3366ff' } }).png().toBuffer();
  assertOk(await postMultipart(t, '/api/v1/realm/emoji/parley_logo', alice, [{ field: 'file', filename: 'parley_logo.png', content: png }]));
  assertOk(await t.api('POST', `/api/v1/messages/${edited}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  assertOk(await t.api('POST', `/api/v1/messages/${edited}/reactions`, { as: carol, params: { emoji_name: 'parley_logo' } }));
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: [edited], op: 'add', flag: 'starred' } }));
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: [edited, dm], op: 'add', flag: 'read' } }));
  assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: alice, params: { name: 'designers', description: 'They draw', members: [alice.id, bob.id] } }));
  assertOk(await t.api('POST', '/api/v1/users/me/alert_words', { as: bob, params: { alert_words: ['pixel'] } }));
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: general, topic: 'plans', visibility_policy: 1 } }));
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { twenty_four_hour_time: true, emojiset: 'twitter' } }));
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { mandatory_topics: true, waiting_period_threshold: 4 } }));
  const now = Math.floor(Date.now() / 1000);
  assertOk(await t.api('POST', '/api/v1/scheduled_messages', { as: alice, params: { type: 'stream', to: general, topic: 'later', content: 'in an hour', scheduled_delivery_timestamp: now + 3600 } }));
  // A draft to a group nobody has written to yet: its conversation gets a recipient in the export.
  assertOk(await t.api('POST', '/api/v1/drafts', { as: alice, params: { drafts: [{ type: 'private', to: [bob.id, t.owner.id], topic: '', content: 'draft to a new group', timestamp: now }] } }));
  const field = assertOk(await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Phone', field_type: 1 } })).id as number;
  assertOk(await t.api('PATCH', '/api/v1/users/me/profile_data', { as: carol, params: { data: [{ id: field, value: '555-0100' }] } }));
  assertOk(await t.api('POST', '/api/v1/realm/filters', { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' } }));
  assertOk(await t.api('POST', '/api/v1/default_streams', { params: { stream_id: general } }));
  assertOk(await t.api('POST', '/api/v1/users/me/status', { as: carol, params: { status_text: 'On leave' } }));
  assertOk(await t.api('POST', `/api/v1/users/me/muted_users/${alice.id}`, { as: carol }));
  const hook = assertOk(await t.api('POST', '/api/v1/bots', {
    as: alice, params: { full_name: 'Hook', short_name: 'hook', bot_type: 3, payload_url: 'https://hooks.example/x', interface_type: 1 },
  }));
  const hookBot = asTestUser(await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', hook.user_id as number).executeTakeFirstOrThrow());
  assertOk(await t.api('PUT', '/api/v1/bot_storage', { as: hookBot, params: { storage: { seen: '3' } } }));
  assertOk(await t.api('POST', '/api/v1/saved_snippets', { as: bob, params: { title: 'Greeting', content: 'Hello there' } }));
  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: carol, params: { status: 'active' } }));
  assertOk(await t.api('DELETE', `/api/v1/users/${dave.id}`));
  return { hookBot, alice, bob, carol, dave, bot, general, secret, old, edited, secretMsg, dm, groupDm, uploadPath };
}

