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
