import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, basic, createAcme, ACME_HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { createWebhookBot, postWebhook, newestMessage, messageCount, fixture } from '../helpers/webhooks.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser } from '../../src/actions/user-deactivate.js';
import { doDeactivateRealm } from '../../src/actions/realm-create.js';
import { doCreateBot } from '../../src/actions/bot-create.js';
import { realms } from '../../src/store/repos/realms.js';
import { BotType } from '../../src/lib/roles.js';

/**
 * POST /api/v1/external/<integration> end to end, through helloworld (the spec's sample):
 * where the message goes, how the bot authenticates, and every error a caller can meet.
 */
let t: TestApp;
let alice: TestUser;
let hook: TestUser;
let streamId: number;
const HELLO = { featured_title: 'Marilyn Monroe', featured_url: 'https://en.wikipedia.org/wiki/Marilyn_Monroe' };
const HELLO_BODY = 'Hello! I am happy to be here! :smile:\nThe Wikipedia featured article for today is **[Marilyn Monroe](https://en.wikipedia.org/wiki/Marilyn_Monroe)**';

before(async () => {
  t = await testApp();
  alice = await t.createUser({ name: 'Alice Smith' });
  const streams = await createStreams(t, { general: [t.owner, alice], secret: { inviteOnly: true, subscribers: [alice] } });
  streamId = streams.general.id;
  hook = await createWebhookBot(t);
});
after(() => t.close());

test('helloworld to a stream: the default topic and Zulip\'s exact text, sent by the bot', async () => {
  const r = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: 'general' }, body: fixture('helloworld', 'hello') });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { result: 'success', msg: '' });
  const m = await newestMessage(t, alice);
  assert.equal(m.type, 'stream');
  assert.equal(m.display_recipient, 'general');
  assert.equal(m.subject, 'Hello World');
  assert.equal(m.content, HELLO_BODY);
  assert.equal(m.sender_id, hook.id);
  assert.equal(m.client, 'ZulipHelloWorldWebhook');
});

test('the stream may be named by id, and a custom topic replaces the default', async () => {
  const r = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: String(streamId), topic: 'Articles' }, body: HELLO });
  assert.equal(r.status, 200);
  const m = await newestMessage(t, alice);
  assert.equal(m.stream_id, streamId);
  assert.equal(m.subject, 'Articles');
  assert.equal(m.content, HELLO_BODY);
});

test('without a stream the message goes privately to the bot\'s owner', async () => {
  const owned = await createWebhookBot(t, alice);
  const r = await postWebhook(t, 'helloworld', { key: owned.apiKey, body: HELLO });
  assert.equal(r.status, 200);
  const m = await newestMessage(t, alice);
  assert.equal(m.type, 'private');
  assert.equal(m.sender_id, owned.id);
  assert.deepEqual(m.display_recipient.map((u: { id: number }) => u.id).sort(), [alice.id, owned.id].sort());
  assert.equal(m.content, HELLO_BODY);
});

test('a stream that does not exist: Zulip\'s error, nothing posted, and Notification Bot tells the owner', async () => {
  const owned = await createWebhookBot(t, alice);
  const r = await postWebhook(t, 'helloworld', { key: owned.apiKey, query: { stream: 'nowhere' }, body: HELLO });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: "Stream 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' });
  const notice = await newestMessage(t, alice);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.equal(notice.content, `Your bot \`${owned.email}\` tried to send a message to stream #**nowhere**, but that stream does not exist. Click [here](#streams/new) to create it.`);
  // By id, Zulip's other wording; the owner was told minutes ago, so not again (Zulip's 5-minute wait).
  const before = await messageCount(t, alice);
  const byId = await postWebhook(t, 'helloworld', { key: owned.apiKey, query: { stream: '99999' }, body: HELLO });
  assert.deepEqual(byId.body, { result: 'error', msg: "Stream with ID '99999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 99999 });
  assert.equal(await messageCount(t, alice), before);
});

test('a private stream neither the bot nor its owner is in answers as a missing one', async () => {
  const r = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: 'secret' }, body: HELLO });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, "Stream 'secret' does not exist");
  assert.notEqual((await newestMessage(t, alice)).display_recipient, 'secret');
});

test('a payload lacking a key: an error naming it, and nothing posted', async () => {
  const before = await messageCount(t, alice);
  const r = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: 'general' }, body: { featured_title: 'Only a title' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: "payload['featured_url'] is missing", code: 'BAD_REQUEST' });
  const wrongType = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: 'general' }, body: { featured_title: 5, featured_url: 'u' } });
  assert.deepEqual(wrongType.body, { result: 'error', msg: "payload['featured_title'] is not a string", code: 'BAD_REQUEST' });
  assert.equal(await messageCount(t, alice), before);
});

test('a body that is not JSON: Malformed JSON, nothing posted, the owner told once', async () => {
  const owned = await createWebhookBot(t, alice);
  const before = await messageCount(t, alice);
  const r = await postWebhook(t, 'helloworld', { key: owned.apiKey, query: { stream: 'general' }, body: '{"featured_title": ' });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: 'Malformed JSON', code: 'INVALID_JSON' });
  const notice = await newestMessage(t, alice);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.match(notice.content, /^Hi there! It looks like you tried to set up the HelloWorld integration,\nbut didn't correctly configure/);
  assert.equal(await messageCount(t, alice), before + 1);
});

test('form bodies work too: JSON sent under a form type, form fields, and multipart', async () => {
  const asForm = await postWebhook(t, 'helloworld', { key: hook.apiKey, query: { stream: 'general', topic: 'form-json' }, body: HELLO, contentType: 'application/x-www-form-urlencoded' });
  assert.equal(asForm.status, 200, JSON.stringify(asForm.body));
  assert.equal((await newestMessage(t, alice)).content, HELLO_BODY);
  const fields = new URLSearchParams({ ...HELLO, api_key: hook.apiKey, stream: 'general', topic: 'form-fields' }).toString();
  const r = await postWebhook(t, 'helloworld', { key: null, body: fields, contentType: 'application/x-www-form-urlencoded' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const m = await newestMessage(t, alice);
  assert.equal(m.subject, 'form-fields');
  assert.equal(m.content, HELLO_BODY);
  const form = new FormData();
  for (const [k, v] of Object.entries({ ...HELLO, api_key: hook.apiKey, stream: 'general', topic: 'multipart' })) form.append(k, v);
  const req = new Request('http://x/', { method: 'POST', body: form });
  const mp = await postWebhook(t, 'helloworld', { key: null, body: Buffer.from(await req.arrayBuffer()).toString('latin1'), contentType: req.headers.get('content-type')! });
  assert.equal(mp.status, 200, JSON.stringify(mp.body));
  assert.equal((await newestMessage(t, alice)).subject, 'multipart');
});

test('credentials: a missing, malformed or wrong key answers 401; so does another account\'s', async () => {
  const missing = await postWebhook(t, 'helloworld', { key: null, query: { stream: 'general' }, body: HELLO });
  assert.equal(missing.status, 401);
  assert.deepEqual(missing.body, { result: 'error', msg: "Missing 'api_key' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'api_key' });
  const malformed = await postWebhook(t, 'helloworld', { key: 'short', body: HELLO });
  assert.equal(malformed.status, 401);
  assert.deepEqual(malformed.body, { result: 'error', msg: 'Malformed API key', code: 'INVALID_API_KEY' });
  const wrong = await postWebhook(t, 'helloworld', { key: 'A'.repeat(32), body: HELLO });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' });
  const generic = await t.createBot(t.owner, { fullName: 'Generic', shortName: 'generic' });
  for (const who of [t.owner, alice, generic]) {
    const r = await postWebhook(t, 'helloworld', { key: who.apiKey, query: { stream: 'general' }, body: HELLO });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: 'error', msg: 'Account is not valid to post webhook messages', code: 'UNAUTHORIZED' });
  }
});

test('HTTP basic authentication works as the api_key parameter does; a mismatched email does not', async () => {
  const ok = await postWebhook(t, 'helloworld', { key: null, query: { stream: 'general', topic: 'basic' }, body: HELLO, headers: { authorization: basic(hook.email, hook.apiKey) } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((await newestMessage(t, alice)).subject, 'basic');
  const other = await postWebhook(t, 'helloworld', { key: null, body: HELLO, headers: { authorization: basic(alice.email, hook.apiKey) } });
  assert.equal(other.status, 401);
  assert.equal(other.body.msg, 'Invalid API key');
});

test('a deactivated bot, and a bot of a deactivated organization, answer 401', async () => {
  const doomed = await createWebhookBot(t);
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, doomed.row));
  const r = await postWebhook(t, 'helloworld', { key: doomed.apiKey, query: { stream: 'general' }, body: HELLO });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });

  const acme = await createAcme(t);
  const acmeHook = asTestUser(await transact(t.app.ctx, (tx) =>
    doCreateBot(tx, t.app.ctx.config, acme.realm, acme.owner.row, { fullName: 'Acme hook', shortName: 'acmehook', botType: BotType.INCOMING_WEBHOOK })));
  assert.equal((await postWebhook(t, 'helloworld', { key: acmeHook.apiKey, host: ACME_HOST, body: HELLO })).status, 200);
  // A key is only good on its own organization's host.
  assert.equal((await postWebhook(t, 'helloworld', { key: acmeHook.apiKey, body: HELLO })).body.msg, 'Invalid API key');
  await transact(t.app.ctx, async (tx) => doDeactivateRealm(tx, (await realms.findById(tx.db, acme.realm.id))!));
  const gone = await postWebhook(t, 'helloworld', { key: acmeHook.apiKey, host: ACME_HOST, body: HELLO });
  assert.equal(gone.status, 401);
  assert.deepEqual(gone.body, { result: 'error', msg: 'This organization has been deactivated', code: 'REALM_DEACTIVATED' });
});

test('an unknown integration is 404, before any credential', async () => {
  for (const key of [hook.apiKey, null]) {
    const r = await postWebhook(t, 'nosuchthing', { key, body: HELLO });
    assert.equal(r.status, 404);
    assert.equal(r.body.result, 'error');
  }
});

test('incoming-webhook bots may not use the regular API, except to send messages', async () => {
  for (const [method, url] of [['GET', '/api/v1/users/me'], ['GET', '/api/v1/messages'], ['POST', '/api/v1/register'], ['GET', '/api/v1/events']] as const) {
    // Twice: the second request takes the verified-login cache's path.
    for (let i = 0; i < 2; i++) {
      const r = await t.api(method, url, { as: hook });
      assert.equal(r.status, 401, `${method} ${url}`);
      assert.deepEqual(r.body, { result: 'error', msg: 'This API is not available to incoming webhook bots.', code: 'UNAUTHORIZED' });
    }
  }
  const sent = await t.api('POST', '/api/v1/messages', { as: hook, params: { type: 'stream', to: 'general', topic: 'direct', content: 'posted directly' } });
  assert.equal(sent.status, 200);
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: hook })).status, 401);
});

test('only_events and exclude_events filter by the event type, with shell-style patterns', async () => {
  const before = await messageCount(t, alice);
  const headers = { 'x-github-event': 'issues' };
  const body = fixture('github', 'issues__opened');
  const skipped = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'general', only_events: '["push_*"]' }, body, headers });
  assert.equal(skipped.status, 200);
  const excluded = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'general', exclude_events: '["iss*"]' }, body, headers });
  assert.equal(excluded.status, 200);
  assert.equal(await messageCount(t, alice), before);
  const wanted = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'general', only_events: '["issues","push_commits"]' }, body, headers });
  assert.equal(wanted.status, 200);
  assert.equal(await messageCount(t, alice), before + 1);
});
