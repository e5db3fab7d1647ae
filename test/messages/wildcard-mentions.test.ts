import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { createStreams, setRealmSettings } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

/**
 * Wildcard mentions of levels 224, 229 and 247 (Zulip's UserMentionPattern, get_recipient_info,
 * the wildcard checks of check_message): `@**channel**` and the other stream wildcards rendered
 * with `channel-wildcard-mention`, `@**topic**` as `topic-mention` flagging the topic's
 * participants (senders and reactors, the sender included); the flags stream_wildcard_mentioned
 * and topic_wildcard_mentioned beside the deprecated wildcard_mentioned; wildcard_mention_policy
 * over both, with their own error codes. At 122: Zulip 5's forms.
 */
const apps: TestApp[] = [];
let t: TestApp;
let old: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
let lobby: number, crowd: number;
let crowdPeople: TestUser[];
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  t = await testApp({ featureLevel: 277 });
  old = await testApp({ featureLevel: 122 });
  apps.push(t, old);
  ({ alice, bob, carol, dave } = await t.createUsers(people('alice', 'bob', 'carol', 'dave')));
  crowdPeople = [];
  for (let i = 0; i < 16; i++) crowdPeople.push(await t.createUser({ name: `Crowd Person ${i}` }));
  const s = await createStreams(t, { lobby: [alice, bob, carol, dave], crowd: [alice, ...crowdPeople] });
  [lobby, crowd] = [s.lobby.id, s.crowd.id];
});

const send = (app: TestApp, as: TestUser, stream: number, topic: string, content: string) =>
  app.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: String(stream), topic, content } });
const fetchOne = async (app: TestApp, as: TestUser, id: number) =>
  assertOk(await app.api('GET', `/api/v1/messages/${id}`, { as })).message as { content: string; flags: string[] };

test('247: @**channel** and @**all** render as channel wildcards and flag everyone', async () => {
  const log = new EventLog(t);
  const { id } = assertOk(await send(t, alice, lobby, 'news', '@**channel** and @**all** and @_**everyone**'));
  const m = await fetchOne(t, bob, id);
  assert.equal(m.content, '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@channel</span> and '
    + '<span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> and '
    + '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">everyone</span></p>');
  assert.deepEqual(m.flags, ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  const flags = log.one('message').event.flags_by_user as Record<number, string[]>;
  assert.deepEqual(flags[carol.id], ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  // is:mentioned finds it.
  const found = assertOk(await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'mentioned' }]) } }));
  assert.ok(found.messages.some((x: { id: number }) => x.id === id));
});

test('224: @**topic** flags the topic\'s participants only (senders, reactors, the sender)', async () => {
  const first = assertOk(await send(t, bob, lobby, 'plans', 'first')).id as number;
  assertOk(await t.api('POST', `/api/v1/messages/${first}/reactions`, { as: carol, params: { emoji_name: 'smile' } }));
  const log = new EventLog(t);
  const { id } = assertOk(await send(t, alice, lobby, 'plans', 'hey @**topic**'));
  const flags = log.one('message').event.flags_by_user as Record<number, string[]>;
  assert.deepEqual(flags[bob.id], ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(flags[carol.id], ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(flags[dave.id], [], 'not a participant');
  assert.ok(flags[alice.id]!.includes('topic_wildcard_mentioned'), 'the sender is a participant');
  const m = await fetchOne(t, bob, id);
  assert.equal(m.content, '<p>hey <span class="topic-mention">@topic</span></p>');
  assert.deepEqual(m.flags, ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual((await fetchOne(t, dave, id)).flags, []);
  // In the unread mentions of register.
  const state = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { fetch_event_types: ['message', 'update_message_flags'] } }));
  assert.ok(state.unread_msgs.mentions.includes(id));
  // is:mentioned.
  const found = assertOk(await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'mentioned' }]) } }));
  assert.ok(found.messages.some((x: { id: number }) => x.id === id));
  // Silent: rendered, no flags.
  const silent = assertOk(await send(t, alice, lobby, 'plans', '@_**topic**')).id as number;
  assert.equal((await fetchOne(t, bob, silent)).content, '<p><span class="topic-mention silent">topic</span></p>');
  assert.deepEqual((await fetchOne(t, bob, silent)).flags, []);
  // An edit that adds it flags the participants too.
  const plain = assertOk(await send(t, alice, lobby, 'plans', 'plain')).id as number;
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/messages/${plain}`, { as: alice, params: { content: 'now @**topic**' } }));
  const edited = log.one('update_message').event.flags_by_user as Record<number, string[]>;
  assert.deepEqual(edited[bob.id], ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.deepEqual(edited[dave.id], []);
});

test('229: wildcard_mention_policy governs both, each with its own code; few participants are always fine', async () => {
  await setRealmSettings(t, { wildcard_mention_policy: 6 });
  assertError(await send(t, alice, crowd, 'all hands', '@**channel** hi'), 'You do not have permission to use channel wildcard mentions in this channel.', 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
  // Two participants in a stream of 17: allowed.
  assertOk(await send(t, crowdPeople[0]!, crowd, 'small talk', 'hi'));
  assertOk(await send(t, alice, crowd, 'small talk', '@**topic** hi'));
  for (const p of crowdPeople) assertOk(await send(t, p, crowd, 'big talk', 'me too'));
  assertError(await send(t, alice, crowd, 'big talk', '@**topic** hi'), 'You do not have permission to use topic wildcard mentions in this topic.', 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
  await setRealmSettings(t, { wildcard_mention_policy: 1 });
  assertOk(await send(t, alice, crowd, 'big talk', '@**topic** hi'));
});

test('at 122: Zulip 5\'s rendering and flags; no @**channel** or @**topic**; the old error', async () => {
  const { alice: erin, bob: frank } = await old.createUsers(people('alice', 'bob'));
  const s = await createStreams(old, { town: [erin, frank] });
  const { id } = assertOk(await send(old, erin, s.town.id, 'x', '@**all** @**channel** @**topic**'));
  const m = await fetchOne(old, frank, id);
  assert.equal(m.content, '<p><span class="user-mention" data-user-id="*">@all</span> @<strong>channel</strong> @<strong>topic</strong></p>');
  assert.deepEqual(m.flags, ['wildcard_mentioned']);
  const crowdOld: TestUser[] = [];
  for (let i = 0; i < 16; i++) crowdOld.push(await old.createUser({ name: `Old Crowd ${i}` }));
  const big = await createStreams(old, { square: [erin, ...crowdOld] });
  await setRealmSettings(old, { wildcard_mention_policy: 6 });
  assertError(await send(old, erin, big.square.id, 'x', '@**all**'), 'You do not have permission to use wildcard mentions in this stream.');
});
