import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { until } from '../helpers/until.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { fakeBouncer, type FakeBouncer } from '../helpers/bouncer.js';
import { clusterUnavailable, inProcessCluster } from '../helpers/cluster.js';

/**
 * The whole path as a user meets it, with the real senders: a message sent over HTTP to
 * someone away ends as one email at an SMTP server and one push at Zulip's service (a fake
 * one here); someone at their desk gets no email (and a push only with online push on), and
 * who read it in time gets neither.
 */
let smtp: TestSmtp;
let bouncer: FakeBouncer;
let t: TestApp;
let alice: TestUser, bob: TestUser, carol: TestUser;
const later = (secs: number) => Math.floor(Date.now() / 1000) + secs;

before(async () => {
  smtp = await startSmtp();
  bouncer = await fakeBouncer();
  t = await testApp({ smtpUrl: smtp.url, pushBouncerUrl: bouncer.url });
  ({ alice, bob, carol } = await t.createUsers({
    alice: { name: 'Alice Smith' }, bob: { name: 'Bob Jones', email: `bob@${HOST}` }, carol: { name: 'Carol King', email: `carol@${HOST}` },
  }));
  for (const u of [bob, carol]) assertOk(await t.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: u, params: { token: `fcm-${u.id}` } }));
});
after(async () => {
  await t.close();
  await smtp.close();
  await bouncer.close();
});

const dm = async (to: TestUser, content: string): Promise<number> =>
  assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([to.id]), content } })).id;
const notifiesFor = (u: TestUser, messageId: number) =>
  bouncer.ok('push/notify').filter((c) => c.body.user_id === u.id && c.body.gcm_payload?.zulip_message_id === messageId);

test('a private message to someone away: a push at once, one email after the batching period, with the content', async () => {
  const id = await dm(bob, 'are you coming to the **launch**?');
  const n = t.app.ctx.notifications!;
  await n.decideNow();
  await n.runDue();
  await t.app.ctx.push!.runDue();
  const [push] = await until(() => notifiesFor(bob, id).length > 0 && notifiesFor(bob, id));
  assert.equal(push!.body.gcm_payload.content, 'are you coming to the launch?');
  assert.equal(push!.body.gcm_payload.sender_full_name, 'Alice Smith');
  assert.equal(smtp.to(`bob@${HOST}`).length, 0, 'the email waits for the batching period');
  await n.runDue(later(121));
  const [mail] = await until(() => smtp.to(`bob@${HOST}`).length > 0 && smtp.to(`bob@${HOST}`));
  assert.equal(mail!.subject, 'DMs with Alice Smith');
  assert.match(mail!.text ?? '', /are you coming to the \*\*launch\*\*\?/);
  assert.match(String(mail!.html), /<strong>launch<\/strong>/);
  assert.equal(await n.runDue(later(10_000)), 0, 'sent once');
});

test('read before the batch is due: no email; the push already shown is removed', async () => {
  const id = await dm(carol, 'never mind');
  const n = t.app.ctx.notifications!;
  await n.decideNow();
  await n.runDue();
  await t.app.ctx.push!.runDue();
  await until(() => notifiesFor(carol, id).length > 0);
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: carol, params: { messages: JSON.stringify([id]), op: 'add', flag: 'read' } }));
  await t.app.ctx.push!.runDue();
  await until(() => bouncer.ok('push/notify').some((c) => c.body.user_id === carol.id && c.body.gcm_payload?.event === 'remove'
    && String(c.body.gcm_payload.zulip_message_ids).split(',').includes(String(id))));
  await n.runDue(later(121));
  assert.equal(smtp.to(`carol@${HOST}`).length, 0);
});

test('someone at their desk (a polled queue and active presence): no email; a push only while online push is on, as Zulip', async () => {
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: bob, params: { event_types: JSON.stringify(['message']) } }));
  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active' } }));
  const before = smtp.to(`bob@${HOST}`).length;
  const n = t.app.ctx.notifications!;
  const deliver = async (): Promise<void> => {
    await n.decideNow();
    await n.runDue(later(121));
    await t.app.ctx.push!.runDue();
  };
  // enable_online_push_notifications is on by default (Zulip's default): the phone rings anyway.
  const online = await dm(bob, 'quick question');
  await deliver();
  await until(() => notifiesFor(bob, online).length === 1);
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { enable_online_push_notifications: false } }));
  const quiet = await dm(bob, 'another one');
  await deliver();
  // runDue answers once everything due has gone, its own sends and any background look's.
  assert.equal(notifiesFor(bob, quiet).length, 0);
  assert.equal(notifiesFor(bob, online).length, 1, 'pushed once');
  assert.equal(smtp.to(`bob@${HOST}`).length, before, 'no email to someone at their desk');
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { enable_online_push_notifications: true } }));
  assertOk(await t.api('DELETE', '/api/v1/events', { as: bob, params: { queue_id: reg.queue_id } }));
});

test('a cluster of two nodes sends one email and one push for a message', { skip: clusterUnavailable() }, async () => {
  const mails = await startSmtp();
  const service = await fakeBouncer();
  const c = await inProcessCluster(2, { smtpUrl: mails.url, pushBouncerUrl: service.url });
  try {
    const [one, two] = c.nodes as [TestApp, TestApp];
    const { sender, away } = await one.createUsers({ sender: { name: 'Sam Sender' }, away: { name: 'Avery Away', email: `avery@${HOST}` } });
    assertOk(await two.api('POST', '/api/v1/users/me/android_gcm_reg_id', { as: away, params: { token: 'fcm-avery' } }));
    const id = assertOk(await two.api('POST', '/api/v1/messages', { as: sender, params: { type: 'private', to: JSON.stringify([away.id]), content: 'ping' } })).id;
    for (let round = 0; round < 3; round++) {
      await Promise.all(c.nodes.map((node) => node.app.ctx.notifications!.decideNow()));
      await Promise.all(c.nodes.map((node) => node.app.ctx.notifications!.runDue(later(121))));
      await Promise.all(c.nodes.map((node) => node.app.ctx.push!.runDue()));
    }
    await mails.waitFor(1);
    await until(() => service.ok('push/notify').some((x) => x.body.gcm_payload?.zulip_message_id === id));
    // Whatever either node still had would have gone by now: both have run every step three times.
    assert.equal(mails.to(`avery@${HOST}`).length, 1);
    assert.equal(service.ok('push/notify').filter((x) => x.body.gcm_payload?.zulip_message_id === id).length, 1);
  } finally {
    await c.close();
    await mails.close();
    await service.close();
  }
});
