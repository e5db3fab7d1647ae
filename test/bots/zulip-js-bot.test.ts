import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages } from '../helpers/messages.js';

/**
 * A bot written with zulip-js, over real HTTP (issue 21's acceptance): it registers a
 * queue with its own key, long-polls, and answers what is addressed to it (a stream
 * mention or a private message) the way zulip-js bots do. A generic bot's API works as a
 * user's: it sends, registers and receives events where it is mentioned or messaged.
 */
let t: TestApp;
let base: string;
let alice: TestUser;

before(async () => {
  t = await testApp({ heartbeatMs: 500 });
  alice = await t.createUser({ name: 'Alice Smith' });
  await createStreams(t, { lobby: [alice] });
  base = await t.listen();
});
after(() => t.close());

interface Reply { kind: 'stream' | 'private'; to: string | number[]; topic?: string; content: string }

/** The bot: registers, then (the promise it answers) replies to the first `count` messages addressed to it. */
async function startEchoBot(client: any, count: number): Promise<{ running: Promise<Reply[]> }> {
  const reg = await client.queues.register({ event_types: ['message'] });
  assert.equal(reg.result, 'success', JSON.stringify(reg));
  const me = await client.users.me.getProfile();
  return { running: echo(client, reg, me, count) };
}

async function echo(client: any, reg: any, me: any, count: number): Promise<Reply[]> {
  const replies: Reply[] = [];
  let last = reg.last_event_id;
  while (replies.length < count) {
    const r = await client.events.retrieve({ queue_id: reg.queue_id, last_event_id: last });
    assert.equal(r.result, 'success', JSON.stringify(r));
    for (const e of r.events) {
      last = Math.max(last, e.id);
      if (e.type !== 'message' || e.message.sender_id === me.user_id) continue;
      const m = e.message;
      const addressed = m.type === 'private' || e.flags.includes('mentioned');
      if (!addressed) continue;
      const text = m.content.replace(/<[^>]+>/g, '').replace(/@\S+ \S+/, '').trim();
      const reply: Reply = m.type === 'stream'
        ? { kind: 'stream', to: m.display_recipient, topic: m.subject, content: `echo: ${text}` }
        : { kind: 'private', to: m.display_recipient.filter((u: any) => u.id !== me.user_id).map((u: any) => u.id), content: `echo: ${text}` };
      const sent = await client.messages.send(reply.kind === 'stream'
        ? { type: 'stream', to: reply.to, topic: reply.topic, content: reply.content }
        : { type: 'private', to: JSON.stringify(reply.to), content: reply.content });
      assert.equal(sent.result, 'success', JSON.stringify(sent));
      replies.push(reply);
    }
  }
  await client.queues.deregister({ queue_id: reg.queue_id });
  return replies;
}

test('a zulip-js bot hears its stream mention through its queue and replies in the stream; it answers a private message too', async () => {
  const ownerClient = await zulip({ realm: base, username: alice.email, apiKey: alice.apiKey });
  const created = await (ownerClient as any).callEndpoint('/bots', 'POST', { full_name: 'Echo Bot', short_name: 'echo' });
  assert.equal(created.result, 'success', JSON.stringify(created));
  const sub = await t.api('POST', '/api/v1/users/me/subscriptions', { params: { subscriptions: [{ name: 'lobby' }], principals: [created.user_id] } });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const botClient = await zulip({ realm: base, username: 'echo-bot@parley.test', apiKey: created.api_key });
  const { running } = await startEchoBot(botClient, 2);

  // Something it is not addressed in: ignored.
  await ownerClient.messages.send({ type: 'stream', to: 'lobby', topic: 'chat', content: 'just chatting' });
  await ownerClient.messages.send({ type: 'stream', to: 'lobby', topic: 'chat', content: '@**Echo Bot** ping' });
  await ownerClient.messages.send({ type: 'private', to: JSON.stringify([created.user_id]), content: 'secret ping' } as any);
  const replies = await running;
  assert.deepEqual(replies.map((r) => [r.kind, r.content]), [['stream', 'echo: ping'], ['private', 'echo: secret ping']]);

  const lobby = (await getMessages(t, alice, { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'stream', operand: 'lobby' }], apply_markdown: false })).body.messages;
  const last = lobby[lobby.length - 1];
  assert.equal(last.sender_id, created.user_id);
  assert.equal(last.content, 'echo: ping');
  assert.equal(last.subject, 'chat');
  const pms = (await getMessages(t, alice, { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'pm-with', operand: `echo-bot@parley.test` }], apply_markdown: false })).body.messages;
  assert.equal(pms[0].content, 'echo: secret ping');
  assert.equal(pms[0].sender_id, created.user_id);
});
