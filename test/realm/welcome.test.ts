import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, createAcme, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { getMessages } from '../helpers/messages.js';
import { realms } from '../../src/store/repos/realms.js';
import { up as addWelcomeBots } from '../../src/store/migrations/019-welcome-bot.js';
import { ENGINE, FEATURE_LEVEL } from '../helpers/app.js';

/**
 * Welcome: a new organization starts with #general (a default stream, its notifications
 * stream, with an introduction from Welcome Bot), and every new human gets Welcome Bot's
 * private greeting unless the organization turned send_welcome_emails off. A new user's
 * "all messages" view is never empty.
 */
let t: TestApp;

before(async () => {
  t = await testApp({}, { welcome: true });
});
after(() => t.close());

const allMessages = async (as: TestUser) => assertOk(await getMessages(t, as, { anchor: 'newest', num_before: 50, num_after: 0 })).messages as any[];

test('the default organization starts with #general, a default stream with an introduction', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm', 'subscription', 'default_streams', 'realm_user'] } }));
  const general = reg.subscriptions.find((s: any) => s.name === 'general');
  assert.ok(general, 'the owner is subscribed to #general');
  // Level 330: default streams are ids.
  assert.deepEqual(FEATURE_LEVEL >= 330 ? reg.realm_default_streams : reg.realm_default_streams.map((s: any) => s.name), FEATURE_LEVEL >= 330 ? [general.stream_id] : ['general']);
  // Level 241 renamed notifications_stream to new_stream_announcements_stream.
  assert.equal(reg[FEATURE_LEVEL >= 241 ? 'realm_new_stream_announcements_stream_id' : 'realm_notifications_stream_id'], general.stream_id);
  assert.deepEqual(reg.cross_realm_bots.map((b: any) => [b.email, b.full_name, b.is_system_bot]),
    [['notification-bot@zulip.com', 'Notification Bot', true], ['welcome-bot@zulip.com', 'Welcome Bot', true]]);
  const intro = (await allMessages(t.owner)).filter((m) => m.type === 'stream');
  assert.equal(intro.length, 1);
  assert.equal(intro[0].display_recipient, 'general');
  assert.equal(intro[0].subject, 'welcome');
  assert.equal(intro[0].sender_email, 'welcome-bot@zulip.com');
});

test('a new user is greeted privately by Welcome Bot and sees #general: "all messages" is not empty', async () => {
  const r = assertOk(await t.api('POST', '/api/v1/users', { params: { email: 'newbie@parley.test', password: 'pw-12345678', full_name: 'Nell Newbie' } }));
  const row = await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', r.user_id).executeTakeFirstOrThrow();
  const newbie: TestUser = { id: row.id, email: row.email, apiKey: row.api_key, row };
  const messages = await allMessages(newbie);
  const greeting = messages.filter((m) => m.type === 'private');
  assert.equal(greeting.length, 1);
  assert.equal(greeting[0].sender_full_name, 'Welcome Bot');
  assert.equal(greeting[0].sender_email, 'welcome-bot@zulip.com');
  assert.deepEqual(greeting[0].display_recipient.map((u: any) => u.email).sort(), ['newbie@parley.test', 'welcome-bot@zulip.com']);
  assert.match(greeting[0].content, /welcome to <strong>Parley Test<\/strong>/);
  assert.deepEqual(greeting[0].flags, []);
  // The stream's history is there too (public history).
  assert.ok(messages.some((m) => m.type === 'stream' && m.display_recipient === 'general'));
  const unread = assertOk(await t.api('POST', '/api/v1/register', { as: newbie, params: { fetch_event_types: ['message', 'update_message_flags'] } })).unread_msgs;
  assert.equal(unread.pms.length, 1);
});

test('bots are not greeted; the organization can turn the greeting off with send_welcome_emails', async () => {
  const bot = assertOk(await t.api('POST', '/api/v1/bots', { params: { full_name: 'Quiet Bot', short_name: 'quiet' } }));
  const botRow = await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', bot.user_id).executeTakeFirstOrThrow();
  assert.equal((await allMessages({ id: botRow.id, email: botRow.email, apiKey: botRow.api_key, row: botRow })).filter((m) => m.type === 'private').length, 0);

  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { send_welcome_emails: false } }));
  const quiet = await t.createUser({ name: 'Una Ungreeted' });
  assert.equal((await allMessages(quiet)).filter((m) => m.type === 'private').length, 0);
  // Still subscribed to #general, so the feed is not empty.
  assert.ok((await allMessages(quiet)).length > 0);
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { send_welcome_emails: true } }));
  const greeted = await t.createUser({ name: 'Greta Greeted' });
  assert.equal((await allMessages(greeted)).filter((m) => m.type === 'private').length, 1);
});

test('another organization gets its own #general and Welcome Bot; tests may opt out', async () => {
  const { realm } = await createAcme(t, { welcome: true });
  const bots = await t.app.ctx.store.db.selectFrom('users').select(['email']).where('realm_id', '=', realm.id).where('is_system_bot', '=', 1).orderBy('id').execute();
  assert.deepEqual(bots.map((b) => b.email), ['notification-bot@zulip.com', 'welcome-bot@zulip.com']);
  const general = await t.app.ctx.store.db.selectFrom('stream').select(['name']).where('realm_id', '=', realm.id).execute();
  assert.deepEqual(general.map((s) => s.name), ['general']);

  const plain = await testApp();
  try {
    const reg = assertOk(await plain.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm', 'subscription'] } }));
    assert.deepEqual(reg.subscriptions, []);
    assert.equal(reg.realm_send_welcome_emails, false);
  } finally {
    await plain.close();
  }
});

test('migration 019 gives an organization without one its Welcome Bot, once', async () => {
  const db = t.app.ctx.store.db;
  const id = await realms.insert(db, { string_id: `old-${ENGINE}`, name: 'Old', description: '', settings: '{}', deactivated: 0, date_created: 1_600_000_000 });
  await addWelcomeBots(db, ENGINE === 'postgres' ? 'postgres' : 'sqlite');
  await addWelcomeBots(db, ENGINE === 'postgres' ? 'postgres' : 'sqlite');
  const bots = await db.selectFrom('users').select(['email', 'is_bot', 'is_system_bot', 'date_joined']).where('realm_id', '=', id).execute();
  assert.deepEqual(bots, [{ email: 'welcome-bot@zulip.com', is_bot: 1, is_system_bot: 1, date_joined: 1_600_000_000 }]);
  // The default organization kept exactly one.
  const mine = await db.selectFrom('users').select('id').where('realm_id', '=', t.realm.id).where('email_lower', '=', 'welcome-bot@zulip.com').execute();
  assert.equal(mine.length, 1);
});
