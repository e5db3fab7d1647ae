import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers(people('alice', 'bob')));
  await createStreams(t, { Verona: [alice], board: { inviteOnly: true, subscribers: [bob] } });
});
after(() => t.close());

test('POST /messages/render answers the rendered HTML with realm users and visible streams', async () => {
  const r = await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content: '**hi** @**Bob Jones** #**Verona** :octopus:' } });
  assert.equal(r.status, 200);
  assert.equal(r.body.result, 'success');
  assert.match(r.body.rendered, /^<p><strong>hi<\/strong> <span class="user-mention" data-user-id="\d+">@Bob Jones<\/span> <a class="stream" data-stream-id="\d+" href="\/#narrow\/stream\/\d+-Verona">#Verona<\/a> <span aria-label="octopus" class="emoji emoji-1f419"/);
});

test('a private stream the author is not in is not linked (its id stays hidden)', async () => {
  const r = await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content: '#**board**' } });
  assert.equal(r.body.rendered, '<p>#<strong>board</strong></p>');
  const member = await t.api('POST', '/api/v1/messages/render', { as: bob, params: { content: '#**board**' } });
  assert.match(member.body.rendered, /class="stream" data-stream-id="\d+"/);
});

test('a user created after a render is mentionable at once', async () => {
  await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content: 'warm the cache' } });
  const carol = await t.createUser({ name: 'Carol New' });
  const r = await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content: '@**Carol New**' } });
  assert.equal(r.body.rendered, `<p><span class="user-mention" data-user-id="${carol.id}">@Carol New</span></p>`);
});

test('POST /messages/render errors: missing content, no credentials', async () => {
  const missing = await t.api('POST', '/api/v1/messages/render', { as: alice, params: {} });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, { result: 'error', msg: "Missing 'content' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'content' });
  const anon = await t.api('POST', '/api/v1/messages/render', { as: null, params: { content: 'x' } });
  assert.equal(anon.status, 401);
});

test('POST /messages/render applies the message limit as a send does: past 10,000 bytes the content is cut and marked', async () => {
  const content = `${'é'.repeat(3000)}\n\n${'word '.repeat(4000)}`;
  const r = await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content } });
  assert.equal(r.status, 200);
  assert.ok(r.body.rendered.endsWith('<br>\n[message truncated]</p>'), r.body.rendered.slice(-60));
  assert.ok(r.body.rendered.length < 12_000);
  const sent = await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'Verona', topic: 'long', content } });
  const stored = await t.api('GET', `/api/v1/messages/${sent.body.id}`, { as: alice });
  assert.equal(stored.body.message.content, r.body.rendered);
});

test('a long message with mentions renders off the request thread with the same mentions and links', async () => {
  const content = `${'filler text. '.repeat(200)}@**Bob Jones** #**Verona**`;
  const r = await t.api('POST', '/api/v1/messages/render', { as: alice, params: { content } });
  assert.match(r.body.rendered, /data-user-id="\d+">@Bob Jones<\/span> <a class="stream"/);
  const sent = await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content } });
  const got = await t.api('GET', `/api/v1/messages/${sent.body.id}`, { as: bob });
  assert.equal(got.body.message.content, r.body.rendered);
  assert.ok(got.body.message.flags.includes('mentioned'));
});
