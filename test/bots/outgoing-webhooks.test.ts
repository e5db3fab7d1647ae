import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, asTestUser, people, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk, sorted } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { until } from '../helpers/until.js';
import { hookServer } from '../helpers/hook-server.js';

// Outgoing-webhook bots end to end: a real HTTP service on the loopback is called after a
// send, with Zulip's payloads; its answers, failures and silences come back as Zulip's do.
// Long enough that a loaded machine answers every quick hook well within it: a timed-out
// call would be retried and its answer posted twice.
const TIMEOUT_MS = 5_000;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let general: number;

before(async () => {
  t = await testApp({ outgoingWebhookTimeoutMs: TIMEOUT_MS, outgoingWebhookRetryDelayMs: 5 });
  ({ alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol')));
  general = (await createStreams(t, { general: [alice, bob] })).general.id;
});
after(() => t.close());

interface OutgoingBot { bot: TestUser; token: string; fullName: string }

/** POST /bots for an outgoing-webhook bot owned by `owner`; answers it and its service's token. */
async function outgoingBot(app: TestApp, owner: TestUser, short: string, url: string, interfaceType = 1): Promise<OutgoingBot> {
  const fullName = `${short[0].toUpperCase()}${short.slice(1)} Bot`;
  const created = assertOk(await app.api('POST', '/api/v1/bots', {
    as: owner, params: { full_name: fullName, short_name: short, bot_type: 3, payload_url: url, interface_type: interfaceType },
  }));
  const db = app.app.ctx.store.db;
  const row = await db.selectFrom('users').selectAll().where('id', '=', created.user_id).executeTakeFirstOrThrow();
  const service = await db.selectFrom('bot_service').selectAll().where('bot_id', '=', row.id).executeTakeFirstOrThrow();
  return { bot: asTestUser(row), token: service.token, fullName };
}

const pending = (app: TestApp) => app.app.ctx.outgoingWebhooks!.pending;
/** A private message's trigger: renamed `direct_message` at feature level 201. */
const pmTrigger = (app: TestApp) => (app.app.ctx.config.featureLevel >= 201 ? 'direct_message' : 'private_message');

/** `as`'s messages from `sender`, oldest first, raw markdown. */
async function messagesFrom(app: TestApp, as: TestUser, sender: TestUser): Promise<any[]> {
  const body = assertOk(await getMessages(app, as, { apply_markdown: false }));
  return body.messages.filter((m: any) => m.sender_id === sender.id);
}

const mention = (app: TestApp, as: TestUser, who: string, topic = 'hello', extra = '') =>
  sendMessage(app, as, { type: 'stream', to: 'general', topic, content: `@**${who}** ${extra}`.trim() });
/** Zulip's near_message_url of message `id` in #general. */
const nearLink = (id: number, topic: string) => `http://${HOST}/#narrow/stream/${general}-general/topic/${topic}/near/${id}`;

test('a stream mention calls the service with Zulip\'s generic payload; its answer is posted in the topic as the bot', async () => {
  const hook = await hookServer(() => ({ body: { content: 'pong **loud**' } }));
  try {
    const echo = await outgoingBot(t, alice, 'echo', hook.url);
    // Mention syntax in code and silent mentions are no mentions: no call for these.
    await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'hello', content: '`@**Echo Bot**` and @_**Echo Bot**' });
    assert.equal(pending(t), 0, 'nothing queued for a mention in code or a silent one');
    const id = await mention(t, alice, 'Echo Bot', 'hello', 'ping');
    await until(() => hook.calls.length === 1);
    const call = hook.calls[0];
    assert.equal(call.headers['content-type'], 'application/json');
    assert.match(String(call.headers['user-agent']), /^ZulipOutgoingWebhook\//);
    const { message, ...rest } = call.json;
    assert.deepEqual(rest, {
      data: '@**Echo Bot** ping', bot_email: echo.bot.email, bot_full_name: 'Echo Bot', token: echo.token, trigger: 'mention',
    });
    assert.equal(message.id, id);
    assert.equal(message.type, 'stream');
    assert.equal(message.content, '@**Echo Bot** ping', 'raw markdown');
    assert.equal(message.content_type, 'text/x-markdown');
    assert.match(message.rendered_content, /class="user-mention"/);
    assert.equal(message.display_recipient, 'general');
    assert.equal(message.stream_id, general);
    assert.equal(message.subject, 'hello');
    assert.equal(message.sender_id, alice.id);
    assert.equal(message.sender_email, alice.email);
    assert.equal(message.sender_full_name, 'Alice Smith');
    assert.equal(message.sender_realm_str, '');
    assert.equal(message.flags, undefined);

    const replies = await until(async () => {
      const ms = await messagesFrom(t, bob, echo.bot);
      return ms.length === 1 && ms;
    });
    assert.equal(replies[0].content, 'pong **loud**');
    assert.equal(replies[0].display_recipient, 'general');
    assert.equal(replies[0].subject, 'hello');
    assert.equal(replies[0].client, 'OutgoingWebhookResponse');
    await until(() => pending(t) === 0);
    assert.equal(hook.calls.length, 1, 'the bot\'s own reply, which names nobody, calls nothing');
  } finally {
    await hook.close();
  }
});

test('a private message to the bot, alone or in a group, triggers "private_message" and the answer is a reply in that conversation', async () => {
  const hook = await hookServer((call) => ({ body: { content: `you said: ${call.json.data}` } }));
  try {
    const pm = await outgoingBot(t, alice, 'pm', hook.url);
    const one = await sendMessage(t, carol, { type: 'private', to: JSON.stringify([pm.bot.id]), content: 'hi bot' });
    await until(() => hook.calls.length === 1);
    assert.equal(hook.calls[0].json.trigger, pmTrigger(t));
    assert.equal(hook.calls[0].json.message.id, one);
    assert.equal(hook.calls[0].json.message.type, 'private');
    assert.deepEqual(sorted(hook.calls[0].json.message.display_recipient.map((u: any) => u.id)), sorted([carol.id, pm.bot.id]));
    const reply = await until(async () => (await messagesFrom(t, carol, pm.bot))[0]);
    assert.equal(reply.type, 'private');
    assert.equal(reply.content, 'you said: hi bot');
    assert.deepEqual(sorted(reply.display_recipient.map((u: any) => u.id)), sorted([carol.id, pm.bot.id]));

    const group = await sendMessage(t, carol, { type: 'private', to: JSON.stringify([pm.bot.id, bob.id]), content: 'hi all' });
    await until(() => hook.calls.length === 2);
    assert.equal(hook.calls[1].json.trigger, pmTrigger(t));
    assert.equal(hook.calls[1].json.message.id, group);
    const groupReply = await until(async () => (await messagesFrom(t, bob, pm.bot)).find((m) => m.content === 'you said: hi all'));
    assert.deepEqual(sorted(groupReply.display_recipient.map((u: any) => u.id)), sorted([carol.id, bob.id, pm.bot.id]));
    await until(() => pending(t) === 0);
    assert.equal(hook.calls.length, 2);
  } finally {
    await hook.close();
  }
});

test('no loops: what a bot sends (the bot itself, to itself or to another outgoing bot) calls nothing', async () => {
  const hook = await hookServer(() => ({ body: { content: 'never' } }));
  try {
    const a = await outgoingBot(t, alice, 'loopa', hook.url);
    const b = await outgoingBot(t, alice, 'loopb', hook.url);
    await sendMessage(t, a.bot, { type: 'stream', to: 'general', topic: 'loops', content: '@**Loopa Bot** @**Loopb Bot** hello' });
    await sendMessage(t, a.bot, { type: 'private', to: JSON.stringify([b.bot.id]), content: 'psst' });
    const plain = await t.createBot(alice, { fullName: 'Plain', shortName: 'plain' });
    await sendMessage(t, plain, { type: 'private', to: JSON.stringify([a.bot.id]), content: 'psst' });
    // The queue is handed its jobs before the send answers: none were.
    assert.equal(pending(t), 0);
    assert.equal(hook.calls.length, 0);
  } finally {
    await hook.close();
  }
});

test('Slack\'s interface: form fields as Zulip sends them, `text` answered back; private messages are refused without a call', async () => {
  const hook = await hookServer(() => ({ body: { text: 'slack says hi' } }));
  try {
    const slack = await outgoingBot(t, alice, 'slack', hook.url, 2);
    const id = await mention(t, bob, 'Slack Bot', 'slacking', 'hey');
    await until(() => hook.calls.length === 1);
    const call = hook.calls[0];
    assert.equal(call.headers['content-type'], 'application/x-www-form-urlencoded');
    const sent = (await t.app.ctx.store.db.selectFrom('message').select('date_sent').where('id', '=', id).executeTakeFirstOrThrow()).date_sent;
    assert.deepEqual([...call.form.entries()], [
      ['token', slack.token], ['team_id', ''], ['team_domain', HOST], ['channel_id', String(general)], ['channel_name', 'general'],
      ['timestamp', String(sent)], ['user_id', String(bob.id)], ['user_name', 'Bob Jones'], ['text', '@**Slack Bot** hey'],
      ['trigger_word', 'mention'], ['service_id', String(slack.bot.id)],
    ]);
    const reply = await until(async () => (await messagesFrom(t, bob, slack.bot))[0]);
    assert.equal(reply.content, 'slack says hi');
    assert.equal(reply.subject, 'slacking');

    await sendMessage(t, carol, { type: 'private', to: JSON.stringify([slack.bot.id]), content: 'private?' });
    const refusal = await until(async () => (await messagesFrom(t, carol, slack.bot))[0]);
    assert.equal(refusal.content, "Failure! Slack outgoing webhooks don't support private messages.");
    assert.equal(hook.calls.length, 1, 'no call for the private message');
  } finally {
    await hook.close();
  }
});

test('response_not_required, an empty content or a bare "" answer post nothing', async () => {
  const answers: unknown[] = [{ response_not_required: true, content: 'ignored' }, { content: '   ' }, '""', {}];
  const hook = await hookServer(() => ({ body: answers[hook.calls.length - 1] }));
  try {
    const quiet = await outgoingBot(t, alice, 'quiet', hook.url);
    for (let i = 0; i < answers.length; i++) {
      await mention(t, alice, 'Quiet Bot', 'quiet', `n${i}`);
      await until(() => hook.calls.length === i + 1 && pending(t) === 0);
    }
    assert.deepEqual(await messagesFrom(t, alice, quiet.bot), []);
  } finally {
    await hook.close();
  }
});

test('an answer that is not JSON: "Failure!" in the topic, and the owner is told with the body quoted', async () => {
  const hook = await hookServer(() => ({ body: 'not json' }));
  try {
    const bad = await outgoingBot(t, alice, 'badjson', hook.url);
    const id = await mention(t, bob, 'Badjson Bot', 'bad');
    const inTopic = await until(async () => (await messagesFrom(t, bob, bad.bot))[0]);
    assert.equal(inTopic.content, 'Failure! Invalid JSON in response');
    const notice = await until(async () => (await messagesFrom(t, alice, bad.bot)).find((m) => m.type === 'private'));
    assert.equal(notice.content, `[A message](${nearLink(id, 'bad')}) to your bot @_**Badjson Bot** triggered an outgoing webhook.\n`
      + 'The outgoing webhook server attempted to send a message in Parley, but that request resulted in the following error:\n> Invalid JSON in response\n'
      + "The response contains the following payload:\n```\n'not json'\n```");
    assert.deepEqual(sorted(notice.display_recipient.map((u: any) => u.id)), sorted([alice.id, bad.bot.id]));
  } finally {
    await hook.close();
  }
});

test('a 500 answer is reported at once (Zulip retries only timeouts and connection errors): in the topic and to the owner with the status', async () => {
  const hook = await hookServer(() => ({ status: 500, body: { error: 'boom' } }));
  try {
    const failing = await outgoingBot(t, alice, 'failing', hook.url);
    const id = await mention(t, bob, 'Failing Bot', 'fails');
    const inTopic = await until(async () => (await messagesFrom(t, bob, failing.bot))[0]);
    assert.equal(inTopic.content, 'Failure! Third party responded with 500');
    const notice = await until(async () => (await messagesFrom(t, alice, failing.bot)).find((m) => m.type === 'private'));
    assert.equal(notice.content, `[A message](${nearLink(id, 'fails')}) to your bot @_**Failing Bot** triggered an outgoing webhook.\n`
      + "The webhook got a response with status code *500*.\nThe response contains the following payload:\n```\nb'{\"error\":\"boom\"}'\n```");
    await until(() => pending(t) === 0);
    assert.equal(hook.calls.length, 1);
  } finally {
    await hook.close();
  }
});

test('an endpoint that never answers: tried again after each timeout, then "Bot is unavailable" and the owner told', async () => {
  // Its own server, with a short timeout: four of them pass before the failure is told.
  const app = await testApp({ outgoingWebhookTimeoutMs: 1_000, outgoingWebhookRetryDelayMs: 5 });
  const hook = await hookServer(() => 'hang');
  try {
    const { dave, erin } = await app.createUsers({ dave: { name: 'Dave Long' }, erin: { name: 'Erin Ng' } });
    const stream = (await createStreams(app, { general: [dave, erin] })).general.id;
    const slow = await outgoingBot(app, dave, 'slow', hook.url);
    const id = await mention(app, erin, 'Slow Bot', 'slow');
    const inTopic = await until(async () => (await messagesFrom(app, erin, slow.bot))[0]);
    assert.equal(inTopic.content, 'Failure! Bot is unavailable');
    assert.equal(hook.calls.length, 4, 'one call and Zulip\'s three retries');
    const notice = await until(async () => (await messagesFrom(app, dave, slow.bot)).find((m) => m.type === 'private'));
    assert.equal(notice.content, `[A message](http://${HOST}/#narrow/stream/${stream}-general/topic/slow/near/${id}) to your bot @_**Slow Bot** triggered an outgoing webhook.\n`
      + 'Request timed out after 1 seconds.');
    await until(() => hook.open === 0, { message: 'each timed-out call given up by the caller' });
  } finally {
    await app.close();
    await hook.close();
  }
});

test('an endpoint that refuses connections: retried, then the owner hears "Is my bot server down?", also for a private message', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const down = await outgoingBot(t, carol, 'down', `http://127.0.0.1:${port}/hook`);
  const id = await sendMessage(t, bob, { type: 'private', to: JSON.stringify([down.bot.id]), content: 'anyone?' });
  const inConversation = await until(async () => (await messagesFrom(t, bob, down.bot))[0]);
  assert.equal(inConversation.content, 'Failure! Bot is unavailable');
  const notice = await until(async () => (await messagesFrom(t, carol, down.bot))[0]);
  const ids = [bob.id, down.bot.id].sort((a, b) => a - b).join(',');
  assert.equal(notice.content, `[A message](http://${HOST}/#narrow/pm-with/${ids}-pm/near/${id}) to your bot @_**Down Bot** triggered an outgoing webhook.\n`
    + 'A connection error occurred. Is my bot server down?');
});

test('a hanging endpoint does not slow the sender; a full backlog drops with a notice; shutdown does not wait for the hang', async () => {
  // A long timeout, so that the first call is certainly still hanging while the second send runs.
  const app = await testApp({ outgoingWebhookTimeoutMs: 60_000, outgoingWebhookConcurrency: 1, outgoingWebhookBacklog: 1, outgoingWebhookShutdownGraceMs: 50 });
  const hook = await hookServer(() => 'hang');
  let closed = false;
  try {
    const { dave, erin } = await app.createUsers({ dave: { name: 'Dave Long' }, erin: { name: 'Erin Ng' } });
    await createStreams(app, { general: [dave, erin] });
    const hang = await outgoingBot(app, dave, 'hang', hook.url);
    await mention(app, erin, 'Hang Bot', 'first');
    await until(() => hook.open === 1, { message: 'the first call hanging at the endpoint' });
    const second = await app.api('POST', '/api/v1/messages', { as: erin, params: { type: 'stream', to: 'general', topic: 'second', content: '@**Hang Bot** again' } });
    assertOk(second);
    assert.equal(hook.open, 1, 'the send answered while the endpoint still held the first call unanswered');
    // The second call found the one-job backlog full: dropped, and the owner told.
    const notice = await until(async () => (await messagesFrom(app, dave, hang.bot))[0]);
    assert.match(notice.content, /to your bot @_\*\*Hang Bot\*\* triggered an outgoing webhook\.\nThe server had too many outgoing webhook calls waiting, so this one was dropped\.$/);
    assert.equal(hook.calls.length, 1);
    await app.close();
    closed = true;
    await until(() => hook.open === 0, { message: 'the hanging call cut off by the shutdown' });
  } finally {
    if (!closed) await app.close();
    await hook.close();
  }
});

test('the trigger of a private message is "direct_message" from feature level 201, "private_message" below', async () => {
  for (const level of [200, 201]) {
    const app = await testApp({ featureLevel: level, outgoingWebhookTimeoutMs: TIMEOUT_MS, outgoingWebhookRetryDelayMs: 5 });
    const hook = await hookServer(() => ({ body: {} }));
    try {
      const { dave } = await app.createUsers(people('dave'));
      const pm = await outgoingBot(app, dave, 'lvl', hook.url);
      await sendMessage(app, dave, { type: 'private', to: JSON.stringify([pm.bot.id]), content: 'hi' });
      await until(() => hook.calls.length === 1);
      assert.equal(hook.calls[0].json.trigger, level >= 201 ? 'direct_message' : 'private_message');
    } finally {
      await hook.close();
      await app.close();
    }
  }
});
