import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createAcme, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { createStreams } from '../helpers/streams.js';
import { digestsTo } from '../helpers/digest-mail.js';
import { sendDigests, weekdayOf } from '../../src/notifications/digest.js';
import { nowSeconds } from '../../src/lib/time.js';
import { realms } from '../../src/store/repos/realms.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';

// Who gets the weekly digest (Zulip's enqueue_emails): active humans with
// enable_digest_emails, in organizations with digest_emails_enabled, on digest_weekday, away
// more than five days (nothing recorded of them since), and none sent already this period.
let t: TestApp;
let talker: TestUser;
let n = 0;
const DAY = 86400;

before(async () => {
  t = await testApp();
  talker = await t.createUser({ name: 'Tess Talker' });
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_emails_enabled: true, digest_weekday: weekdayOf(nowSeconds()) } }));
});
after(() => t.close());

/** A user away since they joined, subscribed to a fresh stream where two others just talked. */
async function awayReader(opts: { name?: string } = {}): Promise<TestUser> {
  const i = ++n;
  const reader = await t.createUser({ name: opts.name ?? `Reader ${i}`, email: `reader${i}@parley.test` });
  const other = await t.createUser({ name: `Other ${i}` });
  const name = `room ${i}`;
  await createStreams(t, { [name]: [reader, talker, other] });
  await sendMessage(t, talker, { type: 'stream', to: name, topic: 'plans', content: 'Shall we meet?' });
  await sendMessage(t, other, { type: 'stream', to: name, topic: 'plans', content: 'Yes, Tuesday.' });
  return reader;
}

const outbox = () => t.app.ctx.mail.outbox!;
const due = (now = nowSeconds()) => t.app.ctx.digests!.sendDue(now);
const mails = (u: TestUser) => digestsTo(outbox(), u.email);

test('an away user with digests on gets one digest, and no second one that day or after a restart', async () => {
  const reader = await awayReader();
  assert.ok((await due()) >= 1);
  assert.equal((await mails(reader)).length, 1);
  await due();
  await due(nowSeconds() + 3 * 3600);
  assert.equal((await mails(reader)).length, 1, 'already sent this period');
  // What a restarted server or another node sees is the stored last_sent: a fresh run sends nothing more.
  await sendDigests(t.app.ctx, nowSeconds() + 60);
  assert.equal((await mails(reader)).length, 1);
});

test('two runs at once (two nodes) send one digest', async () => {
  const reader = await awayReader();
  const now = nowSeconds();
  await Promise.all([sendDigests(t.app.ctx, now), sendDigests(t.app.ctx, now), sendDigests(t.app.ctx, now)]);
  assert.equal((await mails(reader)).length, 1);
});

test('recently active users get none: presence, a web session, a message sent', async () => {
  const present = await awayReader();
  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: present, params: { status: 'active' } }));
  const writer = await awayReader();
  await sendMessage(t, writer, { type: 'private', to: JSON.stringify([talker.id]), content: 'hi' });
  // A web session used today (its last_seen, as the session middleware keeps it).
  const browsing = await awayReader();
  const now = nowSeconds();
  await t.app.ctx.store.db.insertInto('session').values({ id_hash: `digest-test-${browsing.id}`, user_id: browsing.id, realm_id: t.realm.id, csrf_token: 'x', created: now - 30 * DAY, expires: now + DAY, last_seen: now - 3600 }).execute();
  await due();
  assert.equal((await mails(present)).length, 0, 'active by presence');
  assert.equal((await mails(browsing)).length, 0, 'active in a web session');
  assert.equal((await mails(writer)).length, 0, 'active by sending');
});

test("the user's setting off: none; bots and deactivated users: none", async () => {
  const off = await awayReader();
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: off, params: { enable_digest_emails: false } }));
  const gone = await awayReader();
  assertOk(await t.api('DELETE', `/api/v1/users/${gone.id}`));
  const bot = await t.createBot(t.owner, { fullName: 'Digest Bot', shortName: `digest-${n}` });
  await createStreams(t, { [`room ${n}`]: [bot] });
  await due();
  assert.equal((await mails(off)).length, 0);
  assert.equal((await mails(gone)).length, 0);
  assert.equal((await mails(bot)).length, 0);
});

test("the organization's setting off, or another weekday: none until its weekday", async () => {
  const reader = await awayReader();
  const today = weekdayOf(nowSeconds());
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_emails_enabled: false } }));
  await due();
  assert.equal((await mails(reader)).length, 0, 'organization off');
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_emails_enabled: true, digest_weekday: (today + 1) % 7 } }));
  await due();
  assert.equal((await mails(reader)).length, 0, 'not its weekday');
  // 0 is Monday, as Zulip's weekday().
  assert.equal(weekdayOf(Date.UTC(2024, 0, 1) / 1000), 0);
  await due(nowSeconds() + DAY);
  assert.equal((await mails(reader)).length, 1, 'the next day is the weekday');
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { digest_weekday: today } }));
});

test('nothing new: no email (Zulip sends none without hot conversations or new streams)', async () => {
  const { realm, owner } = await createAcme(t);
  const settings = { ...JSON.parse(realm.settings), digest_emails_enabled: true, digest_weekday: weekdayOf(nowSeconds()) };
  await realms.update(t.app.ctx.store.db, realm.id, { settings: JSON.stringify(settings) });
  await due();
  assert.equal((await mails(owner)).length, 0);
  // Nor is it marked sent, only looked at: the hourly job leaves the user until the next
  // weekday (Zulip's job runs once a day), while the CLI looks again at once.
  await transact(t.app.ctx, (tx) => createStreamWithSubscribers(tx, realm, { name: 'acme news' }, []));
  await due(nowSeconds() + 3600);
  assert.equal((await mails(owner)).length, 0, 'looked at once a weekday');
  await sendDigests(t.app.ctx, nowSeconds(), { realm: (await realms.findById(t.app.ctx.store.db, realm.id))!, anyWeekday: true });
  const [mail] = await mails(owner);
  assert.ok(mail, 'a digest once there is a new stream');
  assert.equal(mail.subject, 'Zulip digest for Acme');
});
