import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { testApp, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { sendMessage } from '../helpers/messages.js';
import { startSmtp, SMTP_TEST_TIMEOUT_MS, type TestSmtp } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';
import { sendMissedMessageEmails } from '../../src/notifications/email.js';

// How the missed-message email leaves: an SMTP server that refuses or hangs makes
// sendMissedMessageEmails throw (the notification worker retries with backoff), within the
// transport's timeouts; without SMTP the mail lands in the outbox folder.
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function setup(smtpUrl: string | undefined): Promise<{ t: TestApp; alice: TestUser; bob: TestUser; dm: (content: string) => Promise<number> }> {
  const t = await testApp(smtpUrl ? { smtpUrl } : {});
  closers.push(() => t.close());
  const { alice, bob } = await t.createUsers({ alice: { name: 'Alice Smith' }, bob: { name: 'Bob Jones', email: `bob@${HOST}` } });
  const dm = (content: string) => sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id]), content });
  return { t, alice, bob, dm };
}

async function smtpServer(behaviour: TestSmtp['behaviour']): Promise<TestSmtp> {
  const smtp = await startSmtp(behaviour);
  closers.push(() => smtp.close());
  return smtp;
}

test('an SMTP server that refuses the mail: the call throws, and succeeds once the server accepts', async () => {
  const smtp = await smtpServer('refuse');
  const { t, bob, dm } = await setup(smtp.url);
  const id = await dm('hello?');
  await assert.rejects(sendMissedMessageEmails(t.app.ctx, bob.row, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]), /550|Mailbox unavailable/);
  smtp.behaviour = 'accept';
  await sendMissedMessageEmails(t.app.ctx, bob.row, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]);
  const [mail] = await smtp.waitFor(1);
  assert.equal(mail!.subject, 'DMs with Alice Smith');
});

test('an SMTP server that hangs: the call throws within the transport timeout, not minutes later', async () => {
  const smtp = await smtpServer('hang');
  const { t, bob, dm } = await setup(smtp.url);
  const id = await dm('anyone?');
  const started = Date.now();
  await assert.rejects(sendMissedMessageEmails(t.app.ctx, bob.row, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]), /timeout|timed out/i);
  const took = Date.now() - started;
  assert.ok(took < SMTP_TEST_TIMEOUT_MS * 10, `threw after ${took} ms`);
  assert.equal(smtp.mails.length, 0);
});

test('no SMTP configured: the mail is written to the outbox folder, both parts', async () => {
  const { t, bob, dm } = await setup(undefined);
  const id = await dm('into the outbox');
  await sendMissedMessageEmails(t.app.ctx, bob.row, [{ messageId: id, trigger: 'private_message', mentionedUserGroupId: null }]);
  const outbox = t.app.ctx.mail.outbox!;
  const files = await until(() => fs.existsSync(outbox) && fs.readdirSync(outbox).filter((f) => f.endsWith('.eml')).length > 0 && fs.readdirSync(outbox));
  const mails = await Promise.all(files.map(async (f) => simpleParser(fs.readFileSync(path.join(outbox, f)))));
  const mail = mails.find((m) => m.subject === 'DMs with Alice Smith');
  assert.ok(mail, JSON.stringify(mails.map((m) => m.subject)));
  assert.match(mail.text ?? '', /> into the outbox/);
  assert.match(typeof mail.html === 'string' ? mail.html : '', /<p>into the outbox<\/p>/);
  assert.equal(mail.replyTo?.value[0]?.address, `noreply@${HOST}`);
});
