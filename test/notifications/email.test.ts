import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { ParsedMail } from 'mailparser';
import { testApp, FEATURE_LEVEL, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { setRealmSettings } from '../helpers/streams.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { uploadOne } from '../helpers/multipart.js';
import { sendMissedMessageEmails } from '../../src/notifications/email.js';
import { CHANNEL_URL_LEVEL } from '../../src/notifications/email-urls.js';
import type { MissedMessage, NotificationTrigger } from '../../src/notifications/triggers.js';

// The missed-message email (Zulip's email_notifications.py and missed_message templates),
// called as the notification worker calls it once a batch is due, after real sends.
let smtp: TestSmtp;
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let designId: number;
const REALM = `http://${HOST}`;
const LATEST = FEATURE_LEVEL >= CHANNEL_URL_LEVEL;

before(async () => {
  smtp = await startSmtp();
  t = await testApp({ smtpUrl: smtp.url });
  ({ alice, bob, carol, dave } = await t.createUsers({
    alice: { name: 'Alice Smith', email: `alice@${HOST}` }, bob: { name: 'Bob Jones', email: `bob@${HOST}` },
    carol: { name: 'Carol King', email: `carol@${HOST}` }, dave: { name: 'Dave Long', email: `dave@${HOST}` },
  }));
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'design' }, { name: 'ops' }], principals: [alice.id, bob.id, carol.id] } }));
  designId = assertOk(await t.api('GET', '/api/v1/get_stream_id', { as: alice, params: { stream: 'design' } })).stream_id as number;
});
after(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.mails.length = 0;
});

const missed = (trigger: NotificationTrigger, ...ids: number[]): MissedMessage[] => ids.map((messageId) => ({ messageId, trigger, mentionedUserGroupId: null }));
const html = (m: ParsedMail) => (typeof m.html === 'string' ? m.html : '');
const text = (m: ParsedMail) => m.text ?? '';
const stream = (as: TestUser, to: string, topic: string, content: string) => sendMessage(t, as, { type: 'stream', to, topic, content });
const dm = (as: TestUser, to: TestUser[], content: string) => sendMessage(t, as, { type: 'private', to: JSON.stringify(to.map((u) => u.id)), content });
// A 1x1 PNG: an upload Parley previews inline.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const sorted = (mails: ParsedMail[]) => [...mails].sort((a, b) => (a.subject ?? '').localeCompare(b.subject ?? ''));

test('a stream topic: one email holding every message, with Zulip\'s subject, headers, link and footer', async () => {
  const m1 = await stream(alice, 'design', 'logo', 'first @**Bob Jones** idea');
  const m2 = await stream(carol, 'design', 'logo', 'second thought');
  const m3 = await stream(carol, 'design', 'logo', 'third thought');
  await sendMissedMessageEmails(t.app.ctx, bob.row, [...missed('mentioned', m1), ...missed('stream_email_notify', m2, m3)]);
  const [mail, ...rest] = await smtp.waitFor(1);
  assert.equal(rest.length, 0);
  assert.equal(mail!.subject, '#design > logo');
  assert.equal(mail!.to && !Array.isArray(mail!.to) ? mail!.to.text : '', `bob@${HOST}`);
  assert.match(mail!.from?.text ?? '', new RegExp(`Parley notifications.*noreply@${HOST.replace('.', '\\.')}`));
  assert.equal(mail!.replyTo?.value[0]?.address, `noreply@${HOST}`);
  const topicUrl = LATEST ? `${REALM}/#narrow/channel/${designId}-design/topic/logo` : `${REALM}/#narrow/stream/${designId}-design/topic/logo`;
  const t1 = text(mail!);
  assert.ok(t1.startsWith('Alice Smith:\n> first @**Bob Jones** idea\n\nCarol King:\n> second thought\n\n> third thought\n\n--\n'), t1);
  assert.match(t1, /You are receiving this because you were personally mentioned\./);
  assert.ok(t1.includes(`Reply in Parley Test:\n\n${topicUrl}\n`), t1);
  assert.ok(t1.includes(`Manage email preferences:\n\n${REALM}/#settings/notifications\n`), t1);
  const h = html(mail!);
  assert.match(h, /<b>Alice Smith<\/b>: first <span class="user-mention"[^>]*>@Bob Jones<\/span> idea/);
  assert.match(h, /<b>Carol King<\/b>: second thought/);
  assert.match(h, /<p>third thought<\/p>/);
  assert.ok(!h.includes('<b>Carol King</b>: third'), 'one sender block per run of messages');
  assert.ok(h.includes(`href="${topicUrl}"`), h);
  assert.ok(h.includes(`href="${REALM}/#settings/notifications"`));
});

test('one email per conversation: two topics and two direct conversations make four emails', async () => {
  const a = await stream(alice, 'design', 'colors', 'red');
  const b = await stream(alice, 'ops', 'deploys', 'friday');
  const c = await dm(alice, [bob], 'are you there?');
  const d = await dm(alice, [bob], 'ping');
  const e = await dm(carol, [bob, dave], 'group hello');
  await sendMissedMessageEmails(t.app.ctx, bob.row, [...missed('stream_email_notify', a, b), ...missed('private_message', c, d, e)]);
  const mails = sorted(await smtp.waitFor(4));
  assert.deepEqual(mails.map((m) => m.subject), ['#design > colors', '#ops > deploys', 'DMs with Alice Smith', 'Group DMs with Carol King and Dave Long']);
  const pm = mails[2]!;
  assert.ok(text(pm).startsWith('> are you there?\n\n> ping\n\n--\n'), text(pm));
  const pmUrl = LATEST ? `${REALM}/#narrow/dm/${alice.id}-Alice-Smith` : `${REALM}/#narrow/pm-with/${alice.id}-alice`;
  assert.ok(text(pm).includes(pmUrl), text(pm));
  const group = mails[3]!;
  const groupUrl = `${REALM}/#narrow/${LATEST ? 'dm' : 'pm-with'}/${[carol.id, dave.id].sort((x, y) => x - y).join(',')}-group`;
  assert.ok(text(group).includes(groupUrl), text(group));
  assert.ok(text(group).startsWith('Carol King:\n> group hello'), text(group));
  assert.match(html(group), /You and Carol King, Dave Long/);
  assert.match(text(mails[0]!), /You are receiving this because you have email notifications enabled for #design\./);
});

test('a message read before the batch is due is dropped; a batch left empty sends nothing', async () => {
  const a = await stream(alice, 'design', 'reads', 'read me');
  const b = await stream(alice, 'design', 'reads', 'still unread');
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([a]), op: 'add', flag: 'read' } }));
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', a, b));
  const [mail] = await smtp.waitFor(1);
  assert.ok(!text(mail!).includes('read me'));
  assert.ok(text(mail!).includes('still unread'));

  smtp.mails.length = 0;
  assertOk(await t.api('POST', '/api/v1/messages/flags', { as: bob, params: { messages: JSON.stringify([b]), op: 'add', flag: 'read' } }));
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', a, b));
  await sendMissedMessageEmails(t.app.ctx, bob.row, []);
  // A deleted message, and one the user never received, send nothing either.
  const gone = await stream(alice, 'design', 'reads', 'deleted soon');
  assertOk(await t.api('DELETE', `/api/v1/messages/${gone}`, { as: t.owner }));
  const notHis = await dm(alice, [carol], 'not for bob');
  await sendMissedMessageEmails(t.app.ctx, bob.row, [...missed('stream_email_notify', gone), ...missed('private_message', notHis)]);
  assert.equal(smtp.mails.length, 0);
});

test('a private stream the user has left since is dropped', async () => {
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'secret' }], invite_only: true, principals: [alice.id, dave.id] } }));
  const m = await stream(alice, 'secret', 'plans', 'hush');
  await sendMissedMessageEmails(t.app.ctx, dave.row, missed('stream_email_notify', m));
  assert.equal((await smtp.waitFor(1)).length, 1, 'a subscriber hears of it');
  smtp.mails.length = 0;
  assertOk(await t.api('DELETE', '/api/v1/users/me/subscriptions', { as: dave, params: { subscriptions: JSON.stringify(['secret']) } }));
  await sendMissedMessageEmails(t.app.ctx, dave.row, missed('stream_email_notify', m));
  assert.equal(smtp.mails.length, 0);
});

test('content hidden by the organization, then by the user: "New messages" and no message text', async () => {
  const m = await stream(alice, 'design', 'hidden', 'the secret plan @**Bob Jones**');
  await setRealmSettings(t, { message_content_allowed_in_email_notifications: false });
  try {
    await sendMissedMessageEmails(t.app.ctx, bob.row, missed('mentioned', m));
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.subject, 'New messages');
    assert.ok(!text(mail!).includes('secret plan') && !html(mail!).includes('secret plan'));
    assert.match(text(mail!), /because your organization hides message content in email notifications\. See http:\/\/parley\.test\/help\/hide-message-content-in-emails/);
    assert.match(text(mail!), /View or reply in Parley Test:/);
  } finally {
    await setRealmSettings(t, { message_content_allowed_in_email_notifications: true });
  }
  smtp.mails.length = 0;
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { message_content_in_email_notifications: false } }));
  try {
    await sendMissedMessageEmails(t.app.ctx, bob.row, missed('mentioned', m));
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.subject, 'New messages');
    assert.ok(!text(mail!).includes('secret plan') && !html(mail!).includes('secret plan'));
    assert.match(text(mail!), /because you have chosen to hide message content in email notifications/);
    assert.match(html(mail!), /you have chosen to <a href="http:\/\/parley\.test\/help\/email-notifications#hide-message-content">hide message content<\/a>/);
  } finally {
    assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { message_content_in_email_notifications: true } }));
  }
});

test('the trigger shapes the footer: group mention, wildcard mention, resolved topic', async () => {
  const g = assertOk(await t.api('POST', '/api/v1/user_groups/create', { as: alice, params: { name: 'reviewers', description: 'r', members: JSON.stringify([bob.id, carol.id]) } }));
  void g;
  const groups = assertOk(await t.api('GET', '/api/v1/user_groups', { as: alice })).user_groups as Array<{ id: number; name: string }>;
  const reviewers = groups.find((x) => x.name === 'reviewers')!.id;
  const a = await stream(alice, 'design', 'review', 'hey @*reviewers*');
  await sendMissedMessageEmails(t.app.ctx, bob.row, [{ messageId: a, trigger: 'mentioned', mentionedUserGroupId: reviewers }]);
  let [mail] = await smtp.waitFor(1);
  assert.match(text(mail!), /You are receiving this because @reviewers was mentioned\./);

  smtp.mails.length = 0;
  const b = await stream(alice, 'design', 'all hands', 'hello @**all**');
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_wildcard_mentioned', b));
  [mail] = await smtp.waitFor(1);
  assert.equal(mail!.subject, '#design > all hands');
  assert.match(text(mail!), /You are receiving this because everyone was mentioned in #design\./);

  smtp.mails.length = 0;
  const c = await stream(alice, 'design', '\u2714 done deal', 'finished');
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', c));
  [mail] = await smtp.waitFor(1);
  assert.equal(mail!.subject, '[resolved] #design > done deal');
});

test('the message HTML is made safe for mail: absolute links, no scripts, emoji and images as Zulip shows them', async () => {
  const shot = await uploadOne(t, alice, 'shot.png', PNG);
  const m = await stream(alice, 'design', 'safety', [
    'see [the spec](/user_uploads/2/ab/spec.pdf) and #**design>logo** :smile:',
    '<script>alert(1)</script> <img src=x onerror=alert(2)>',
    `[shot](${shot})`,
    '```spoiler Plot twist',
    'the butler did it',
    '```',
  ].join('\n'));
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', m));
  const [mail] = await smtp.waitFor(1);
  const h = html(mail!);
  assert.ok(!/<script/i.test(h) && !/onerror/i.test(h.replace(/&lt;[^&]*&gt;/g, '')), h);
  assert.ok(h.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the text stays, escaped');
  assert.ok(h.includes(`href="${REALM}/user_uploads/2/ab/spec.pdf"`), h);
  assert.ok(!/href="\/(?!\/)/.test(h) && !/src="\/(?!\/)/.test(h), 'no relative URL left');
  assert.ok(h.includes(`href="${REALM}/#narrow/`), 'the stream link is absolute');
  assert.ok(h.includes('<span title="smile">\u{1f642}</span>'), 'a Unicode emoji is its character (Zulip names 1f642 smile)');
  assert.ok(!h.includes('message_inline_image'), 'no inline preview');
  assert.ok(!/<img[^>]*user_uploads/.test(h), 'no upload shown as an image');
  assert.ok(h.includes(`href="${REALM}${shot}"`), 'the image stays a link');
  assert.ok(h.includes('Plot twist') && h.includes('(Open Zulip to see the spoiler content)') && !h.includes('butler'), h);
  const tx = text(mail!);
  // Zulip's fix_plaintext_image_urls takes only link texts without spaces.
  assert.ok(tx.includes(`> see [the spec](${REALM}/user_uploads/2/ab/spec.pdf) and`), tx);
  assert.ok(tx.includes(`> ${REALM}${shot}\n`), tx);
  assert.ok(tx.includes('(Open Zulip to see the spoiler content)') && !tx.includes('butler'), tx);
});

test('math shows as its TeX source; the organization is named in the subject when the user asks', async () => {
  const m = await stream(alice, 'design', 'math', 'area is $$\\pi r^2$$ exactly');
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { realm_name_in_email_notifications_policy: 2 } }));
  try {
    await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', m));
  } finally {
    assertOk(await t.api('PATCH', '/api/v1/settings', { as: bob, params: { realm_name_in_email_notifications_policy: 1 } }));
  }
  const [mail] = await smtp.waitFor(1);
  assert.equal(mail!.subject, '#design > math [Parley Test]');
  const h = html(mail!);
  assert.ok(h.includes('$$\\pi r^2$$'), h);
  assert.ok(!/<math|<semantics|katex-html/.test(h), h);
});

test('a message that is only an image becomes a link to it', async () => {
  const pic = await uploadOne(t, alice, 'pic.png', PNG);
  const m = await stream(alice, 'design', 'image only', `[pic.png](${pic})`);
  const stored = await t.app.ctx.store.db.selectFrom('message').select('rendered_content').where('id', '=', m).executeTakeFirstOrThrow();
  assert.match(stored.rendered_content, /message_inline_image/, 'the stored rendering previews the image');
  await sendMissedMessageEmails(t.app.ctx, bob.row, missed('stream_email_notify', m));
  const [mail] = await smtp.waitFor(1);
  const h = html(mail!);
  assert.ok(h.includes(`href="${REALM}${pic}"`), h);
  assert.ok(!/<img[^>]*pic\.png/.test(h), h);
});
