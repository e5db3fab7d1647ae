import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';

let t: TestApp;
let base: string;
let bob: TestUser;

before(async () => {
  t = await testApp();
  ({ bob } = await t.createUsers(people('bob')));
  await createStreams(t, { general: [t.owner, bob] });
  base = await t.listen();
});
after(() => t.close());

test('zulip-js sends stream and private messages and retrieves them with narrows', async () => {
  const owner = await zulip({ realm: base, username: t.owner.email, apiKey: t.owner.apiKey });
  const asBob = await zulip({ realm: base, username: bob.email, apiKey: bob.apiKey });
  const s = await owner.messages.send({ type: 'stream', to: 'general', topic: 'from zulip-js', content: 'stream **hello**' });
  assert.equal(s.result, 'success', JSON.stringify(s));
  const p = await owner.messages.send({ type: 'private', to: [bob.id], content: 'private hello' });
  assert.equal(p.result, 'success', JSON.stringify(p));

  const streamMsgs = await asBob.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'stream', operand: 'general' }] });
  assert.equal(streamMsgs.result, 'success');
  assert.deepEqual(streamMsgs.messages.map((m: any) => m.id), [s.id]);
  assert.equal(streamMsgs.messages[0].content, '<p>stream <strong>hello</strong></p>');
  assert.equal(streamMsgs.messages[0].subject, 'from zulip-js');

  const pms = await asBob.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'pm-with', operand: t.owner.email }] });
  assert.deepEqual(pms.messages.map((m: any) => m.id), [p.id]);
  assert.equal(pms.messages[0].type, 'private');

  const one = await asBob.messages.getById({ message_id: p.id });
  assert.equal(one.result, 'success');
  assert.equal(one.raw_content, 'private hello');
});

test('zulip-js edits a message, reads its history, reacts and unreacts, stars, marks read and deletes', async () => {
  const owner = await zulip({ realm: base, username: t.owner.email, apiKey: t.owner.apiKey });
  const asBob = await zulip({ realm: base, username: bob.email, apiKey: bob.apiKey });
  const { id } = await owner.messages.send({ type: 'stream', to: 'general', topic: 'zulip-js edits', content: 'before' });

  const edited = await owner.messages.update({ message_id: id, content: 'after **edit**' });
  assert.equal(edited.result, 'success', JSON.stringify(edited));
  const renamed = await owner.messages.update({ message_id: id, topic: 'zulip-js renamed', propagate_mode: 'change_all' });
  assert.equal(renamed.result, 'success', JSON.stringify(renamed));
  const seen = await asBob.messages.getById({ message_id: id });
  assert.equal(seen.message.content, '<p>after <strong>edit</strong></p>');
  assert.equal(seen.message.subject, 'zulip-js renamed');
  const history = await asBob.messages.getHistoryById({ message_id: id });
  assert.deepEqual(history.message_history.map((h: any) => h.content), ['before', 'after **edit**', 'after **edit**']);

  assert.equal((await asBob.reactions.add({ message_id: id, emoji_name: 'octopus' })).result, 'success');
  let withReaction = await asBob.messages.getById({ message_id: id });
  assert.deepEqual(withReaction.message.reactions.map((r: any) => [r.emoji_name, r.user_id]), [['octopus', bob.id]]);
  assert.equal((await asBob.reactions.remove({ message_id: id, emoji_name: 'octopus' })).result, 'success');
  withReaction = await asBob.messages.getById({ message_id: id });
  assert.deepEqual(withReaction.message.reactions, []);

  const starred = await asBob.messages.flags.add({ messages: [id], flag: 'starred' });
  assert.equal(starred.result, 'success', JSON.stringify(starred));
  const read = await asBob.messages.flags.add({ messages: [id], flag: 'read' });
  assert.equal(read.result, 'success', JSON.stringify(read));
  assert.deepEqual((await asBob.messages.getById({ message_id: id })).message.flags, ['read', 'starred']);

  const deleted = await owner.messages.deleteById({ message_id: id });
  assert.equal(deleted.result, 'success', JSON.stringify(deleted));
  const gone = await asBob.messages.getById({ message_id: id });
  assert.equal(gone.result, 'error');
  assert.equal(gone.msg, 'Invalid message(s)');
});

test('zulip-js changes personal settings as it sends them (PATCH parameters in the query string)', async () => {
  const asBob = await zulip({ realm: base, username: bob.email, apiKey: bob.apiKey });
  const r = await asBob.callEndpoint('/settings', 'PATCH', { twenty_four_hour_time: true, color_scheme: 2, emojiset: 'text', timezone: 'Asia/Tokyo' });
  assert.equal(r.result, 'success', JSON.stringify(r));
  const reg = await asBob.queues.register({ fetch_event_types: ['user_settings'] });
  assert.deepEqual([reg.user_settings.twenty_four_hour_time, reg.user_settings.color_scheme, reg.user_settings.emojiset, reg.user_settings.timezone],
    [true, 2, 'text', 'Asia/Tokyo']);
  const bad = await asBob.callEndpoint('/settings', 'PATCH', { color_scheme: 9 });
  assert.equal(bad.msg, 'Invalid color_scheme');
});
