import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';

/**
 * Read receipts (levels 137 and 144): the organization setting enable_read_receipts, and
 * GET /messages/{message_id}/read_receipts with Zulip's rules on who is listed.
 */
let t: TestApp;
let spec: TestApp;
let u: Record<'sender' | 'reader' | 'quiet' | 'unread' | 'muter' | 'muted' | 'gone' | 'outsider', TestUser>;
let bot: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  u = await t.createUsers({
    sender: { name: 'Sue Sender' }, reader: { name: 'Rita Reader' }, quiet: { name: 'Quinn Quiet' }, unread: { name: 'Ulf Unread' },
    muter: { name: 'Mo Muter' }, muted: { name: 'Max Muted' }, gone: { name: 'Gus Gone' }, outsider: { name: 'Olga Outsider' },
  });
  bot = await t.createBot(u.sender, { fullName: 'Reading Bot', shortName: 'reading' });
});
after(async () => { await t.close(); await spec.close(); });

const receipts = (as: TestUser | null, id: number | string, app: TestApp = t) => app.api('GET', `/api/v1/messages/${id}/read_receipts`, { as });
const markRead = async (as: TestUser, id: number) => assertOk(await t.api('POST', '/api/v1/messages/flags', { as, params: { messages: [id], op: 'add', flag: 'read' } }));

test('register has realm_enable_read_receipts (true) from level 137 only; PATCH /realm changes it at any level, with a realm event to everyone', async () => {
  assert.equal(assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm'] } })).realm_enable_read_receipts, true);
  const old = assertOk(await spec.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm'] } }));
  assert.equal('realm_enable_read_receipts' in old, false);
  assert.deepEqual(assertOk(await spec.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: false } })), { result: 'success', msg: '', enable_read_receipts: false });

  const log = new EventLog(t);
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: false } }));
  const ev = log.one('realm', 'update');
  assert.deepEqual(ev.event, { type: 'realm', op: 'update', property: 'enable_read_receipts', value: false });
  assert.ok([t.owner, ...Object.values(u)].filter((x) => x !== u.gone).every((x) => ev.userIds.includes(x.id)));
  assert.equal(assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm'] } })).realm_enable_read_receipts, false);
  assertError(await t.api('PATCH', '/api/v1/realm', { as: u.reader, params: { enable_read_receipts: true } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: 'sure' } }), 'Argument "enable_read_receipts" is not valid JSON.');
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: true } }));
});

test('read receipts list who read the message, but not the sender, those who keep it private, the deactivated, or mutes either way; bots count', async () => {
  const members = [u.sender, u.reader, u.quiet, u.unread, u.muter, u.muted, u.gone, bot];
  await createStreams(t, { receipts: members });
  const id = await sendMessage(t, u.sender, { type: 'stream', to: 'receipts', topic: 'who read', content: 'hello' });
  assert.deepEqual(assertOk(await receipts(u.sender, id)).user_ids, []);
  for (const x of [u.sender, u.reader, u.quiet, u.muter, u.muted, u.gone, bot]) await markRead(x, id);
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: u.quiet, params: { send_read_receipts: false } }));
  assertOk(await t.api('DELETE', `/api/v1/users/${u.gone.id}`));
  // Mo muted the requester (Sue); Sue muted Max.
  assertOk(await t.api('POST', `/api/v1/users/me/muted_users/${u.sender.id}`, { as: u.muter }));
  assertOk(await t.api('POST', `/api/v1/users/me/muted_users/${u.muted.id}`, { as: u.sender }));

  assert.deepEqual(assertOk(await receipts(u.sender, id)), { result: 'success', msg: '', user_ids: sorted([u.reader.id, bot.id]) });
  // Another requester sees the muters (the mutes are not theirs) and the sender is still left out.
  assert.deepEqual(sorted(assertOk(await receipts(u.reader, id)).user_ids), sorted([u.reader.id, u.muter.id, u.muted.id, bot.id]));
  // Marking unread takes a reader off again.
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: u.reader, params: { messages: [id], op: 'remove', flag: 'read' } }));
  assert.deepEqual(assertOk(await receipts(u.sender, id)).user_ids, [bot.id]);
  // Turning the setting back on shows the user again.
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: u.quiet, params: { send_read_receipts: true } }));
  assert.deepEqual(sorted(assertOk(await receipts(u.sender, id)).user_ids), sorted([u.quiet.id, bot.id]));
});

test('direct messages, and messages of archived channels, have receipts too', async () => {
  const dm = await sendMessage(t, u.sender, { type: 'private', to: JSON.stringify([u.reader.id]), content: 'psst' });
  await markRead(u.reader, dm);
  assert.deepEqual(assertOk(await receipts(u.sender, dm)).user_ids, [u.reader.id]);
  assert.deepEqual(assertOk(await receipts(u.reader, dm)).user_ids, [u.reader.id]);

  const { archived } = await createStreams(t, { archived: [u.sender, u.reader] });
  const id = await sendMessage(t, u.sender, { type: 'stream', to: 'archived', topic: 't', content: 'soon gone' });
  await markRead(u.reader, id);
  assertOk(await t.api('DELETE', `/api/v1/streams/${archived.id}`));
  assert.deepEqual(assertOk(await receipts(u.sender, id)).user_ids, [u.reader.id]);
});

test('errors: a message one may not read, a missing one, the organization setting off; credentials required', async () => {
  const { secret } = await createStreams(t, { secret: { subscribers: [u.sender, u.reader], inviteOnly: true } });
  const id = await sendMessage(t, u.sender, { type: 'stream', to: 'secret', topic: 't', content: 'hush' });
  assert.ok(secret.id > 0);
  assertError(await receipts(u.outsider, id), 'Invalid message(s)');
  assertError(await receipts(u.sender, 99999999), 'Invalid message(s)');
  assertError(await receipts(u.sender, 'abc'), 'Invalid message id');
  assertUnauthenticated(await receipts(null, id));
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: false } }));
  assertError(await receipts(u.sender, id), 'Read receipts are disabled in this organization.');
  // Access is checked first, as Zulip does.
  assertError(await receipts(u.outsider, id), 'Invalid message(s)');
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: true } }));
  // The endpoint exists at 122 too.
  const s = await spec.createUser({ name: 'Spec Sender' });
  await createStreams(spec, { old: [s] });
  const old = await sendMessage(spec, s, { type: 'stream', to: 'old', topic: 't', content: 'x' });
  assertOk(await spec.api('PATCH', '/api/v1/realm', { params: { enable_read_receipts: true } }));
  assert.deepEqual(assertOk(await receipts(s, old, spec)).user_ids, []);
});
