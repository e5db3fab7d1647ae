import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { transact } from '../../src/actions/transaction.js';
import { doAddReaction } from '../../src/actions/reactions.js';

// POST and DELETE /messages/{id}/reactions end to end: the reaction objects of GET
// /messages, each of Zulip's errors, who hears the `reaction` event, and privacy.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser, guest: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ alice, bob, carol, dave, guest } = await t.createUsers(people('alice', 'bob', 'carol', 'dave', 'guest')));
  await createStreams(t, {
    general: [alice, bob, carol],
    secret: { inviteOnly: true, subscribers: [alice, carol] },
  });
});
after(() => t.close());

const react = (as: TestUser | null, id: number, params: Record<string, unknown>) => t.api('POST', `/api/v1/messages/${id}/reactions`, { as, params });
const unreact = (as: TestUser | null, id: number, params: Record<string, unknown>) => t.api('DELETE', `/api/v1/messages/${id}/reactions`, { as, params });
const inGeneral = (as: TestUser, topic = 'reactions') => sendMessage(t, as, { type: 'stream', to: 'general', topic, content: 'react to me' });
const reactionsOf = async (as: TestUser, id: number) => {
  const body = assertOk(await getMessages(t, as, { anchor: id, num_before: 0, num_after: 0 }));
  assert.equal(body.messages.length, 1);
  return body.messages[0].reactions as Array<Record<string, unknown>>;
};
// Level 328 dropped `user` from messages' reactions (339 kept it in reaction events).
const wire = (u: TestUser, name: string, code: string, type = 'unicode_emoji') => ({
  emoji_name: name, emoji_code: code, reaction_type: type, user_id: u.id,
  ...(FEATURE_LEVEL >= 328 ? {} : { user: { id: u.id, email: u.email, full_name: u.row.full_name, is_mirror_dummy: false } }),
});
const eventOf = (op: string, u: TestUser, id: number, name: string, code: string, type = 'unicode_emoji') => ({
  type: 'reaction', op, message_id: id, emoji_name: name, emoji_code: code, reaction_type: type,
  user_id: u.id, user: { user_id: u.id, email: u.email, full_name: u.row.full_name },
});

test('both routes require authentication', async () => {
  const id = await inGeneral(alice);
  assertUnauthenticated(await react(null, id, { emoji_name: 'smile' }));
  assertUnauthenticated(await unreact(null, id, { emoji_name: 'smile' }));
});

test('adding by name shows in GET /messages and reaches the subscribers; removing by name takes it away', async () => {
  const id = await inGeneral(bob);
  assert.deepEqual(await reactionsOf(alice, id), [], 'read once first, so that a cached copy exists');
  log.clear();
  assertOk(await react(alice, id, { emoji_name: 'octopus' }));
  const added = log.one('reaction', 'add');
  assert.deepEqual(added.event, eventOf('add', alice, id, 'octopus', '1f419'));
  assert.deepEqual(sorted(added.userIds), sorted([alice.id, bob.id, carol.id]), 'subscribers hear it; dave and the guest do not');
  for (const u of [alice, bob]) assert.deepEqual(await reactionsOf(u, id), [wire(alice, 'octopus', '1f419')]);
  // A reader of the stream who did not receive it sees them too.
  const single = assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: dave }));
  assert.deepEqual(single.message.reactions, [wire(alice, 'octopus', '1f419')]);

  log.clear();
  assertOk(await unreact(alice, id, { emoji_name: 'octopus' }));
  const removed = log.one('reaction', 'remove');
  assert.deepEqual(removed.event, eventOf('remove', alice, id, 'octopus', '1f419'));
  assert.deepEqual(sorted(removed.userIds), sorted([alice.id, bob.id, carol.id]));
  assert.deepEqual(await reactionsOf(bob, id), []);
});

test('a second reaction with the same emoji under another name is a vote: it takes the first one\'s name', async () => {
  const id = await inGeneral(carol);
  assertOk(await react(alice, id, { emoji_name: '+1' }));
  assertOk(await react(bob, id, { emoji_name: 'thumbs_up' }));
  assert.deepEqual(await reactionsOf(carol, id), [wire(alice, '+1', '1f44d'), wire(bob, '+1', '1f44d')]);
  // Removing by either name finds it: the name only leads to the code.
  assertOk(await unreact(bob, id, { emoji_name: 'like' }));
  assert.deepEqual(await reactionsOf(carol, id), [wire(alice, '+1', '1f44d')]);
});

test('emoji_code and reaction_type may be given; service_extra_emoji (zulip_extra_emoji in Zulip) holds "zulip"', async () => {
  const id = await inGeneral(alice);
  assertOk(await react(bob, id, { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' }));
  assertOk(await react(bob, id, { emoji_name: 'zulip' }));
  assertOk(await react(carol, id, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }));
  assertOk(await react(alice, id, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }));
  assert.deepEqual(await reactionsOf(alice, id), [
    wire(bob, 'heart', '2764'), wire(bob, 'zulip', 'zulip', 'service_extra_emoji'),
    wire(carol, 'zulip', 'zulip', 'service_extra_emoji'), wire(alice, 'zulip', 'zulip', 'service_extra_emoji'),
  ]);
  log.clear();
  assertOk(await unreact(carol, id, { emoji_name: 'zulip' }));
  assert.deepEqual(log.one('reaction', 'remove').event, eventOf('remove', carol, id, 'zulip', 'zulip', 'service_extra_emoji'));
  assertOk(await unreact(alice, id, { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }));
  assertOk(await unreact(bob, id, { emoji_code: '2764' }));
  assert.deepEqual(await reactionsOf(alice, id), [wire(bob, 'zulip', 'zulip', 'service_extra_emoji')]);
});

test('removing by code reaches a reaction added under an older name mapping', async () => {
  const id = await inGeneral(alice);
  await t.app.ctx.store.db.insertInto('reaction').values({ message_id: id, user_id: bob.id, emoji_name: 'grinning_old', emoji_code: '1f600', reaction_type: 'unicode_emoji' }).execute();
  assertError(await unreact(bob, id, { emoji_name: 'grinning_old' }), "Emoji 'grinning_old' does not exist");
  log.clear();
  assertOk(await unreact(bob, id, { emoji_code: '1f600', reaction_type: 'unicode_emoji', emoji_name: 'ignored' }));
  assert.deepEqual(log.one('reaction', 'remove').event, eventOf('remove', bob, id, 'grinning_old', '1f600'));
  assert.deepEqual(await reactionsOf(bob, id), []);
});

/** The codes of feature level 193 (Zulip's ReactionExistsError and ReactionDoesNotExistError); BAD_REQUEST before. */
const coded = (code: string) => (t.app.ctx.config.featureLevel >= 193 ? code : 'BAD_REQUEST');

test('each error has Zulip\'s words and changes nothing', async () => {
  const id = await inGeneral(alice);
  assertOk(await react(bob, id, { emoji_name: 'tada' }));
  log.clear();
  const cases: Array<[Promise<any>, string, string?]> = [
    [react(bob, id, { emoji_name: 'tada' }), 'Reaction already exists.', coded('REACTION_ALREADY_EXISTS')],
    [react(bob, id, { emoji_name: 'party_popper_x' }), "Emoji 'party_popper_x' does not exist"],
    [react(bob, id, { emoji_name: 'smile', emoji_code: '2764', reaction_type: 'unicode_emoji' }), 'Invalid emoji name.'],
    [react(bob, id, { emoji_name: 'smile', emoji_code: 'ffffff', reaction_type: 'unicode_emoji' }), 'Invalid emoji code.'],
    [react(bob, id, { emoji_name: 'smile', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }), 'Invalid emoji name.'],
    [react(bob, id, { emoji_name: 'smile', emoji_code: 'smile', reaction_type: 'zulip_extra_emoji' }), 'Invalid emoji code.'],
    [react(bob, id, { emoji_name: 'parrot', emoji_code: '1', reaction_type: 'realm_emoji' }), 'Invalid custom emoji.'],
    [react(bob, id, { emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'bogus_emoji' }), 'Invalid emoji type.'],
    [react(bob, id, {}), "Missing 'emoji_name' argument", 'REQUEST_VARIABLE_MISSING'],
    [react(bob, 999999, { emoji_name: 'smile' }), 'Invalid message(s)'],
    [unreact(bob, id, { emoji_name: 'smile' }), "Reaction doesn't exist.", coded('REACTION_DOES_NOT_EXIST')],
    [unreact(carol, id, { emoji_name: 'tada' }), "Reaction doesn't exist.", coded('REACTION_DOES_NOT_EXIST')],
    // The spec's row: a code that names no emoji is "Invalid message(s)"; a real one not reacted with "doesn't exist".
    [unreact(bob, id, { emoji_code: '1f389', reaction_type: 'realm_emoji' }), 'Invalid message(s)'],
    [unreact(bob, id, { emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }), 'Invalid message(s)'],
    [unreact(bob, id, { emoji_code: '1f600', reaction_type: 'unicode_emoji' }), "Reaction doesn't exist.", coded('REACTION_DOES_NOT_EXIST')],
    [unreact(bob, id, { emoji_name: 'no_such_emoji_x' }), "Emoji 'no_such_emoji_x' does not exist"],
    [unreact(bob, id, {}), 'At least one of the following arguments must be present: emoji_name, emoji_code'],
    [unreact(bob, 999999, { emoji_name: 'tada' }), 'Invalid message(s)'],
  ];
  for (const [call, msg, code] of cases) {
    const r = await call;
    if (code) assertError(r, msg, code, 400, code === 'REQUEST_VARIABLE_MISSING' ? { var_name: 'emoji_name' } : {});
    else assertError(r, msg);
  }
  assert.deepEqual(log.find('reaction'), []);
  assert.deepEqual(await reactionsOf(alice, id), [wire(bob, 'tada', '1f389')]);
});

test('reacting to a public-stream message one never received gives a historical row, and later reactions reach them', async () => {
  const id = await inGeneral(alice);
  log.clear();
  assertOk(await react(dave, id, { emoji_name: 'smile' }));
  assert.deepEqual(sorted(log.one('reaction', 'add').userIds), sorted([alice.id, bob.id, carol.id, dave.id]));
  const row = await t.app.ctx.store.db.selectFrom('user_message').select('flags').where('user_id', '=', dave.id).where('message_id', '=', id).executeTakeFirst();
  assert.ok(row, 'dave has a row now');
  const [m] = assertOk(await t.api('GET', `/api/v1/messages`, { as: dave, params: { anchor: id, num_before: 0, num_after: 0 } })).messages;
  assert.deepEqual(m.flags, ['read', 'historical']);
  log.clear();
  assertOk(await react(bob, id, { emoji_name: 'smile' }));
  assert.ok(log.one('reaction', 'add').userIds.includes(dave.id), 'a later reaction reaches dave');
});

test('privacy: no reacting to, or unreacting from, a private stream one is not in or another\'s private message', async () => {
  const secret = await sendMessage(t, carol, { type: 'stream', to: 'secret', topic: 'x', content: 'hush' });
  const pm = await sendMessage(t, alice, { type: 'private', to: [bob.id], content: 'just us' });
  const open = await inGeneral(alice);
  assertOk(await react(alice, secret, { emoji_name: 'smile' }));
  assertOk(await react(bob, pm, { emoji_name: 'smile' }));
  log.clear();
  for (const [as, id] of [[dave, secret], [bob, secret], [carol, pm], [dave, pm], [t.owner, secret], [guest, open]] as const) {
    assertError(await react(as, id, { emoji_name: 'heart' }), 'Invalid message(s)');
    assertError(await unreact(as, id, { emoji_name: 'smile' }), 'Invalid message(s)');
  }
  assert.deepEqual(log.find('reaction'), []);
  // The people of a private conversation hear of its reactions, and no one else does.
  assertOk(await react(alice, pm, { emoji_name: 'heart' }));
  assert.deepEqual(sorted(log.one('reaction', 'add').userIds), sorted([alice.id, bob.id]));
  log.clear();
  // A private stream with protected history: subscribers who received the message.
  assertOk(await unreact(alice, secret, { emoji_name: 'smile' }));
  assert.deepEqual(sorted(log.one('reaction', 'remove').userIds), sorted([alice.id, carol.id]));
});

test('an event queue receives the reaction event in Zulip\'s shape', async () => {
  const id = await inGeneral(alice);
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: ['reaction'] } }));
  assertOk(await react(carol, id, { emoji_name: 'tada' }));
  const polled = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } }));
  assert.deepEqual(polled.events.map(({ id: _id, ...e }: any) => e), [eventOf('add', carol, id, 'tada', '1f389')]);
});

test('races are answered at the write: identical concurrent adds store one, and a message deleted after the check gets none', async () => {
  const id = await inGeneral(alice);
  log.clear();
  const answers = await Promise.all(Array.from({ length: 6 }, () => react(bob, id, { emoji_name: 'heart' })));
  assert.equal(answers.filter((r) => r.status === 200).length, 1, JSON.stringify(answers.map((r) => r.body)));
  for (const r of answers.filter((x) => x.status !== 200)) assertError(r, 'Reaction already exists.', coded('REACTION_ALREADY_EXISTS'));
  assert.equal(log.find('reaction', 'add').length, 1);
  const removals = await Promise.all(Array.from({ length: 4 }, () => unreact(bob, id, { emoji_name: 'heart' })));
  assert.equal(removals.filter((r) => r.status === 200).length, 1);
  for (const r of removals.filter((x) => x.status !== 200)) assertError(r, "Reaction doesn't exist.", coded('REACTION_DOES_NOT_EXIST'));
  assert.equal(log.find('reaction', 'remove').length, 1);

  // The message goes between the check and the write: the write finds it gone.
  const gone = await inGeneral(alice);
  const message = (await t.app.ctx.store.db.selectFrom('message').selectAll().where('id', '=', gone).executeTakeFirstOrThrow());
  assertOk(await t.api('DELETE', `/api/v1/messages/${gone}`, { as: alice }));
  const write = transact(t.app.ctx, (tx) => doAddReaction(tx, bob.row, message, false, { emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' }, new Set([bob.id]), t.app.ctx.config.featureLevel));
  await assert.rejects(write, (err: any) => err.message === 'Invalid message(s)');
  assert.deepEqual(await t.app.ctx.store.db.selectFrom('reaction').select('id').where('message_id', '=', gone).execute(), []);
});
