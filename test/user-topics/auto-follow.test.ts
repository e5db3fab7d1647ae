import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

/**
 * Topics followed or unmuted automatically (levels 214, 218, 235; Zulip's
 * visibility_policy_for_send_message, do_add_reaction and the mention rule of
 * do_send_messages): by sending (starting a topic, any message), by reacting, by being
 * mentioned; POST /messages answers automatic_new_visibility_policy. Nothing of it at 122.
 */
const FOLLOWED = 3, UNMUTED = 2, MUTED = 1;
const apps: TestApp[] = [];
let t: TestApp;
let old: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser;
let lobby: number, hushed: number;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  t = await testApp({ featureLevel: 277 });
  old = await testApp({ featureLevel: 122 });
  apps.push(t, old);
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  const s = await createStreams(t, { lobby: [alice, bob, carol], hushed: [alice, bob, carol] });
  [lobby, hushed] = [s.lobby.id, s.hushed.id];
  for (const u of [alice, bob, carol]) {
    assertOk(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as: u, params: { subscription_data: JSON.stringify([{ stream_id: hushed, property: 'is_muted', value: true }]) } }));
  }
});

const send = async (app: TestApp, as: TestUser, stream: number, topic: string, content = 'hello') =>
  assertOk(await app.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: String(stream), topic, content } }));
const settings = async (as: TestUser, params: Record<string, unknown>) => assertOk(await t.api('PATCH', '/api/v1/settings', { as, params }));
const policyOf = async (app: TestApp, as: TestUser, stream: number, topic: string) => {
  const state = assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['user_topic'] } }));
  return (state.user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>)
    .find((u) => u.stream_id === stream && u.topic_name.toLowerCase() === topic.toLowerCase())?.visibility_policy ?? 0;
};

test('default (follow on initiation): starting a topic follows it, with the answer field and a user_topic event to the sender only', async () => {
  const log = new EventLog(t);
  const r = await send(t, alice, lobby, 'fresh start');
  assert.equal(r.automatic_new_visibility_policy, FOLLOWED);
  const ev = log.one('user_topic');
  assert.deepEqual(ev.userIds, [alice.id]);
  assert.equal(ev.event.visibility_policy, FOLLOWED);
  assert.equal(ev.event.topic_name, 'fresh start');
  assert.equal(await policyOf(t, alice, lobby, 'fresh start'), FOLLOWED);
  // Replying to someone else's topic is not initiating it; the same letters in another case are the same topic.
  log.clear();
  const reply = await send(t, bob, lobby, 'FRESH START');
  assert.equal('automatic_new_visibility_policy' in reply, false);
  assert.equal(log.find('user_topic').length, 0);
  assert.equal(await policyOf(t, bob, lobby, 'fresh start'), 0);
  // Sending again to one's followed topic changes nothing.
  assert.equal('automatic_new_visibility_policy' in await send(t, alice, lobby, 'fresh start'), false);
});

test('follow on send / never; unmute in a muted stream on send (default) and on initiation; following wins', async () => {
  await settings(bob, { automatically_follow_topics_policy: 2 });
  assert.equal((await send(t, bob, lobby, 'fresh start')).automatic_new_visibility_policy, FOLLOWED);
  await settings(carol, { automatically_follow_topics_policy: 4 });
  // In a muted stream the default unmute-on-send applies.
  assert.equal((await send(t, carol, hushed, 'quiet talk')).automatic_new_visibility_policy, UNMUTED);
  assert.equal(await policyOf(t, carol, hushed, 'quiet talk'), UNMUTED);
  assert.equal('automatic_new_visibility_policy' in await send(t, carol, hushed, 'quiet talk'), false, 'already unmuted');
  assert.equal('automatic_new_visibility_policy' in await send(t, carol, lobby, 'not muted here'), false, 'unmuting is for muted streams');
  await settings(carol, { automatically_unmute_topics_in_muted_streams_policy: 3 });
  assert.equal((await send(t, carol, hushed, 'quiet new')).automatic_new_visibility_policy, UNMUTED);
  assert.equal('automatic_new_visibility_policy' in await send(t, carol, hushed, 'quiet talk'), false);
  // An explicitly muted topic in a normal stream is raised by follow-on-send.
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: bob, params: { stream_id: lobby, topic: 'muted one', visibility_policy: MUTED } }));
  assert.equal((await send(t, bob, lobby, 'muted one')).automatic_new_visibility_policy, FOLLOWED);
  await settings(carol, { automatically_unmute_topics_in_muted_streams_policy: 4 });
  assert.equal('automatic_new_visibility_policy' in await send(t, carol, hushed, 'never ever'), false);
  assert.equal(await policyOf(t, carol, hushed, 'never ever'), 0);
});

test('reacting takes part (on participation); a followed topic is never lowered', async () => {
  await settings(carol, { automatically_follow_topics_policy: 1 });
  const { id } = await send(t, alice, lobby, 'react here');
  const log = new EventLog(t);
  assertOk(await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: carol, params: { emoji_name: 'smile' } }));
  assert.equal(log.one('user_topic').event.visibility_policy, FOLLOWED);
  assert.equal(await policyOf(t, carol, lobby, 'react here'), FOLLOWED);
  // Bob (follow on send) does not follow by reacting.
  assertOk(await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
  assert.equal(await policyOf(t, bob, lobby, 'react here'), 0);
  await settings(carol, { automatically_follow_topics_policy: 4, automatically_unmute_topics_in_muted_streams_policy: 1 });
  const hushedMsg = (await send(t, alice, hushed, 'hushed react')).id;
  assertOk(await t.api('POST', `/api/v1/messages/${hushedMsg}/reactions`, { as: carol, params: { emoji_name: 'smile' } }));
  assert.equal(await policyOf(t, carol, hushed, 'hushed react'), UNMUTED);
});

test('235: mentioned humans follow the topic unless they muted it or turned the setting off', async () => {
  await settings(bob, { automatically_follow_topics_policy: 4 });
  await settings(carol, { automatically_follow_topics_policy: 4 });
  assertOk(await t.api('POST', '/api/v1/user_topics', { as: carol, params: { stream_id: lobby, topic: 'ping', visibility_policy: MUTED } }));
  const log = new EventLog(t);
  await send(t, alice, lobby, 'ping', '@**Bob Jones** @**Carol King** look');
  const ev = log.find('user_topic').filter((e) => e.userIds.includes(bob.id));
  assert.equal(ev.length, 1);
  assert.equal(ev[0]!.event.visibility_policy, FOLLOWED);
  assert.equal(await policyOf(t, carol, lobby, 'ping'), MUTED);
  await settings(bob, { automatically_follow_topics_where_mentioned: false });
  await send(t, alice, lobby, 'ping two', '@**Bob Jones** again');
  assert.equal(await policyOf(t, bob, lobby, 'ping two'), 0);
});

test('at 122 nothing changes by itself and the answer has only the id', async () => {
  const { alice: a, bob: b } = await old.createUsers(people('alice', 'bob'));
  const s = await createStreams(old, { town: [a, b] });
  const log = new EventLog(old);
  const r = await send(old, a, s.town.id, 'brand new', '@**Bob Jones** hi');
  assert.deepEqual(Object.keys(r).sort(), ['id', 'msg', 'result']);
  assert.equal(log.find('user_topic').length + log.find('muted_topics').length, 0);
});
