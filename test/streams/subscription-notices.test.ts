import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { getMessages } from '../helpers/messages.js';

// Notification Bot's messages after POST /users/me/subscriptions, as Zulip sends them.
let t: TestApp;
let member: TestUser;
let admin: TestUser;
let bot: TestUser;

const subscribe = (as: TestUser, params: Record<string, unknown>) => t.api('POST', '/api/v1/users/me/subscriptions', { as, params });
const fromBot = async (as: TestUser, narrow: unknown[]) =>
  (assertOk(await getMessages(t, as, { anchor: 'newest', num_before: 50, num_after: 0, apply_markdown: false, narrow: JSON.stringify(narrow) })).messages as Array<Record<string, any>>)
    .filter((m) => m.sender_email === 'notification-bot@zulip.com');

before(async () => {
  t = await testApp();
  ({ member, admin } = await t.createUsers({ member: { name: 'Mia Member' }, admin: { name: 'Adam Admin', role: 200 } }));
  bot = await t.createBot(member, { fullName: 'Helper Bot', shortName: 'helper' });
  await createStreams(t, { kitchen: [member], pantry: [member], announcements: [member, admin] });
});
after(() => t.close());

test('someone else subscribing you to existing streams gets you a private note; yourself, bots and new streams do not', async () => {
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'kitchen' }]), principals: JSON.stringify([member.id, admin.id, bot.id]) }));
  const notes = await fromBot(admin, [['is', 'private']]);
  assert.equal(notes.length, 1);
  assert.equal(notes[0]!.content, `@**Mia Member|${member.id}** subscribed you to the stream #**kitchen**.`);
  assert.equal(notes[0]!.client, 'Internal');
  assert.equal((await fromBot(member, [['is', 'private']])).length, 0);
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'pantry' }, { name: 'cellar' }]), principals: JSON.stringify([admin.id]) }));
  const second = await fromBot(admin, [['is', 'private']]);
  assert.equal(second.length, 2);
  // Only pantry: cellar was created by this request.
  assert.equal(second[1]!.content, `@**Mia Member|${member.id}** subscribed you to the stream #**pantry**.`);
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'kitchen' }, { name: 'pantry' }, { name: 'cellar' }]), principals: JSON.stringify([bot.id]) }));
});

test('several streams at once are listed', async () => {
  await createStreams(t, { one: [member], two: [member] });
  const fresh = await t.createUser({ name: 'Fay Fresh' });
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'two' }, { name: 'one' }]), principals: JSON.stringify([fresh.id]) }));
  const [note] = await fromBot(fresh, [['is', 'private']]);
  assert.equal(note!.content, `@**Mia Member|${member.id}** subscribed you to the following streams:\n\n* #**one**\n* #**two**`);
});

test('announce: new streams are announced in the notifications stream, when the organization has one', async () => {
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'quiet new' }]), announce: true }));
  assert.equal((await fromBot(admin, [['stream', 'announcements']])).length, 0, 'no notifications stream yet');
  const id = (await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'announcements' } })).body.stream_id;
  await setRealmSettings(t, { notifications_stream_id: id });
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'unannounced' }]) }));
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'garden' }]), announce: true }));
  assertOk(await subscribe(member, { subscriptions: JSON.stringify([{ name: 'north' }, { name: 'south' }]), announce: 'true' }));
  const said = await fromBot(admin, [['stream', 'announcements']]);
  assert.deepEqual(said.map((m) => [m.subject, m.content]), [
    ['new streams', `@_**Mia Member|${member.id}** created a new stream #**garden**.`],
    ['new streams', `@_**Mia Member|${member.id}** created the following streams: #**north**, #**south**.`],
  ]);
});
