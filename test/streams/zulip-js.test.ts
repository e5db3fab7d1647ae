import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { FEATURE_LEVEL, testApp, type TestApp, type TestUser } from '../helpers/app.js';

// Level 289: the subscribe answer keys users by id, not email.
const subKey = (u: { id: number; email: string }) => (FEATURE_LEVEL >= 289 ? String(u.id) : u.email);

let t: TestApp;
let member: TestUser;
let client: any;
before(async () => {
  t = await testApp();
  member = await t.createUser({ name: 'Zed Client' });
  client = await zulip({ username: member.email, apiKey: member.apiKey, realm: await t.listen() });
});
after(async () => { await t.close(); });

test('zulip-js subscribes, lists streams and subscriptions, reads topics, unsubscribes', async () => {
  // zulip-js sends a multipart POST; the caller pre-stringifies JSON parameters.
  const add = await client.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: 'js-land', description: 'From *zulip-js*' }]) });
  assert.equal(add.result, 'success', JSON.stringify(add));
  assert.deepEqual(add.subscribed, { [subKey(member)]: ['js-land'] });

  const listed = await client.streams.retrieve();
  assert.equal(listed.result, 'success');
  const stream = listed.streams.find((s: any) => s.name === 'js-land');
  assert.equal(stream.rendered_description, '<p>From <em>zulip-js</em></p>');

  const id = await client.streams.getStreamId('js-land');
  assert.equal(id.stream_id, stream.stream_id);

  const subs = await client.streams.subscriptions.retrieve({ include_subscribers: 'true' });
  assert.deepEqual(subs.subscriptions.find((s: any) => s.name === 'js-land').subscribers, [member.id]);

  const topics = await client.streams.topics.retrieve({ stream_id: stream.stream_id });
  assert.deepEqual(topics.topics, []);

  // DELETE travels with its parameters in the query string.
  const removed = await client.users.me.subscriptions.remove({ subscriptions: JSON.stringify(['js-land']) });
  assert.equal(removed.result, 'success', JSON.stringify(removed));
  assert.deepEqual(removed.removed, ['js-land']);
  const after = await client.streams.subscriptions.retrieve();
  assert.ok(!after.subscriptions.some((s: any) => s.name === 'js-land'));

  const missing = await client.streams.getStreamId('no-such-thing');
  assert.equal(missing.result, 'error');
  assert.equal(missing.msg, "Invalid stream name 'no-such-thing'");
});
