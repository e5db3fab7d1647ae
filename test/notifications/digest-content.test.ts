import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_LEVEL, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { createStreams } from '../helpers/streams.js';
import { digestsTo, type ParsedMail } from '../helpers/digest-mail.js';
import { sendDigests } from '../../src/notifications/digest.js';
import { nowSeconds } from '../../src/lib/time.js';
import { Role } from '../../src/lib/roles.js';
import type { StreamRow } from '../../src/store/rows.js';

// What the digest says (Zulip's get_digest_context and digest.{html,txt,subject}): the hot
// conversations of the reader's unmuted streams (two by number of senders, then by length,
// four at most, two teaser messages each), the public streams created in the period, links
// to each and to the settings; never another's private messages or streams they cannot see.
let t: TestApp;
let reader: TestUser;
let hidden: TestUser;
let guest: TestUser;
let streams: Record<'design & build' | 'vault' | 'secret plans' | 'muted room' | 'web open', StreamRow>;
let mail: ParsedMail;
const OP = FEATURE_LEVEL >= 250 ? 'channel' : 'stream';
const WORD = FEATURE_LEVEL >= 255 ? 'channel' : 'stream';

before(async () => {
  t = await testApp();
  reader = await t.createUser({ name: 'Rita Reader', email: 'rita@parley.test' });
  hidden = await t.createUser({ name: 'Hugo Hidden', email: 'hugo@parley.test' });
  guest = await t.createUser({ name: 'Gus Guest', email: 'gus@parley.test', role: Role.GUEST });
  const [alice, carol, dave] = [await t.createUser({ name: 'Alice Smith' }), await t.createUser({ name: 'Carol King' }), await t.createUser({ name: 'Dave Long' })];
  const bot = await t.createBot(t.owner, { fullName: 'Build Bot', shortName: 'build' });
  streams = await createStreams(t, {
    'design & build': [reader, hidden, guest, alice, carol, dave, bot],
    vault: { inviteOnly: true, historyPublicToSubscribers: false, subscribers: [alice, carol] },
    'secret plans': { inviteOnly: true, subscribers: [alice, carol] },
    'muted room': [reader, alice],
    'web open': { isWebPublic: true, subscribers: [alice] },
  });
  const say = (as: TestUser, to: string, topic: string, content: string) => sendMessage(t, as, { type: 'stream', to, topic, content });
  await say(alice, 'design & build', '<b>launch</b>', 'Launch on Monday, see #**design & build** <script>alert(1)</script>');
  await say(carol, 'design & build', '<b>launch</b>', 'Monday works.');
  await say(dave, 'design & build', '<b>launch</b>', 'Agreed.');
  for (let i = 1; i <= 5; i++) await say(alice, 'design & build', 'lunch', `Lunch idea ${i}`);
  await say(dave, 'design & build', 'side', 'Side one');
  await say(dave, 'design & build', 'side', 'Side two');
  await say(carol, 'design & build', 'minor', 'A minor note');
  for (let i = 1; i <= 6; i++) await say(bot, 'design & build', 'builds', `Build ${i} passed`);
  await say(alice, 'vault', 'vault talk', 'VAULT-BEFORE the reader joined');
  await createStreams(t, { vault: { inviteOnly: true, historyPublicToSubscribers: false, subscribers: [reader] } });
  await say(alice, 'vault', 'vault talk', 'VAULT-AFTER one');
  await say(carol, 'vault', 'vault talk', 'VAULT-AFTER two');
  await say(alice, 'secret plans', 'hidden topic', 'SECRET-STREAM-CONTENT');
  for (let i = 1; i <= 9; i++) await say(alice, 'muted room', 'noise', `MUTED-NOISE ${i}`);
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions/properties', { as: reader, params: { subscription_data: [{ stream_id: streams['muted room'].id, property: 'is_muted', value: true }] } }));
  await sendMessage(t, alice, { type: 'private', to: JSON.stringify([carol.id]), content: 'DM-OTHERS-SECRET' });
  await sendMessage(t, alice, { type: 'private', to: JSON.stringify([reader.id]), content: 'DM-TO-READER' });
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: hidden, params: { message_content_in_email_notifications: false } }));
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_emails_enabled: true } }));
  await sendDigests(t.app.ctx, nowSeconds(), { anyWeekday: true });
  [mail] = (await digestsTo(t.app.ctx.mail.outbox!, reader.email)) as [ParsedMail];
  assert.ok(mail, 'the reader got a digest');
});
after(() => t.close());

const streamUrl = (s: StreamRow, encoded: string) => `http://parley.test/#narrow/${OP}/${s.id}-${encoded}`;

test("subject and headers: Zulip's subject, both parts, an automatic mail", () => {
  assert.equal(mail.subject, 'Zulip digest for Parley Test');
  assert.ok(mail.text.length > 0 && mail.html.length > 0);
  assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
});

test('hot conversations: two by senders, then by length, four at most, with teasers and links', () => {
  const order = ['<b>launch</b>', 'vault talk', 'lunch', 'side'];
  const at = order.map((topic) => mail.text.indexOf(` > ${topic}\n`));
  assert.ok(at.every((i) => i >= 0), `every hot topic in the text: ${JSON.stringify(at)}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at, 'in Zulip\'s order');
  assert.ok(!mail.text.includes('minor') && !mail.text.includes('Build 1 passed'), 'a fifth topic, and a bots-only one, are left out');
  // The first two messages of a topic, then the rest counted with who wrote them.
  assert.match(mail.text, /Lunch idea 1\nLunch idea 2\n\+ 3 more messages by Alice Smith\./);
  assert.ok(!mail.text.includes('Lunch idea 3'));
  assert.match(mail.text, /\+ 1 more message by Alice Smith, Carol King and Dave Long\./);
  const design = streams['design & build'];
  assert.ok(mail.html.includes(`href="${streamUrl(design, 'design-.26-build')}"`), 'the stream narrow link');
  assert.ok(mail.html.includes(`href="${streamUrl(design, 'design-.26-build')}/topic/.3Cb.3Elaunch.3C.2Fb.3E"`), 'the topic narrow link');
  assert.ok(mail.html.includes('&lt;b&gt;launch&lt;/b&gt;') && !mail.html.includes('<b>launch</b>'), 'names escaped');
});

test('message HTML is made safe for mail: no scripts, absolute links', () => {
  assert.ok(!/<script/i.test(mail.html));
  assert.ok(!/(href|src)="\//.test(mail.html), 'no relative URLs');
  assert.ok(mail.html.includes('href="http://parley.test/#narrow/stream/'), "the message's own stream link, absolute");
});

test('only what the reader may see: no private streams they are not in, no earlier protected history, no muted stream, no private messages', () => {
  for (const part of [mail.text, mail.html]) {
    for (const secret of ['SECRET-STREAM-CONTENT', 'secret plans', 'hidden topic', 'VAULT-BEFORE', 'MUTED-NOISE', 'DM-OTHERS-SECRET', 'DM-TO-READER']) {
      assert.ok(!part.includes(secret), `${secret} is not in the digest`);
    }
  }
  assert.ok(mail.text.includes('VAULT-AFTER one'), 'what the reader received in a protected-history stream is');
});

test('new streams: the public ones created in the period; a guest sees only web-public ones', async () => {
  const word = `${WORD}s`;
  assert.ok(mail.text.includes(`** New ${word} **`));
  for (const name of ['design & build', 'muted room', 'web open']) assert.ok(mail.text.includes(name), name);
  assert.ok(mail.html.includes(`<a href="${streamUrl(streams['web open'], 'web-open')}">web open</a>`));
  const announced = mail.html.slice(mail.html.indexOf(`<h2>New ${word}</h2>`));
  assert.ok(announced.includes('>web open</a>') && !announced.includes('>vault</a>'), 'a private stream is not announced, even to a subscriber');
  const [guestMail] = await digestsTo(t.app.ctx.mail.outbox!, guest.email);
  assert.ok(guestMail);
  const newPart = guestMail.text.slice(guestMail.text.indexOf(`** New ${word} **`));
  assert.ok(newPart.includes('web open') && !newPart.includes('muted room') && !newPart.includes('design & build'));
});

test('links to the organization and the settings page in both parts', () => {
  for (const part of [mail.text, mail.html]) assert.ok(part.includes('http://parley.test/#settings/notifications'));
  assert.ok(mail.text.includes('Log in to Zulip to catch up: http://parley.test.'));
});

test('message content hidden by the user: counts only, and why', async () => {
  const [m] = await digestsTo(t.app.ctx.mail.outbox!, hidden.email);
  assert.ok(m);
  for (const part of [m.text, m.html]) {
    assert.ok(!part.includes('Lunch idea') && !part.includes('Monday works'), 'no content');
    assert.match(part, /You have \d+ new messages, and there are \d+ new (streams|channels) in Parley Test\./);
    assert.ok(part.includes('you have chosen to hide message content'));
  }
});
