import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { webCall, sessionOf, type WebSession } from '../helpers/web.js';
import { until } from '../helpers/until.js';
import type { StreamRow } from '../../src/store/rows.js';

// Invitations at Zulip 9's level: an empty stream list (157/180), include_realm_default_subscriptions
// (261) and notify_referrer_on_join (267) with Notification Bot's message to the inviter.
let t: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
let s: Record<'lobby' | 'named', StreamRow>;
let n = 0;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  u = await t.createUsers(ROLES);
  s = await createStreams(t, { lobby: [t.owner], named: [t.owner] });
  assert.equal((await t.api('POST', '/api/v1/default_streams', { params: { stream_id: s.lobby.id } })).status, 200);
});
after(() => t.close());

const fresh = () => `levelled${++n}@example.com`;
const invite = (as: TestUser, params: Record<string, unknown>) => t.api('POST', '/api/v1/invites', { as, params });

function mailsTo(addr: string): string[] {
  const outbox = t.app.ctx.mail.outbox!;
  return (fs.existsSync(outbox) ? fs.readdirSync(outbox) : []).map((f) => fs.readFileSync(path.join(outbox, f), 'utf8')).filter((m) => m.includes(`To: ${addr}`));
}
async function mailedKey(addr: string): Promise<string> {
  const mails = await until(() => mailsTo(addr).length > 0 && mailsTo(addr), { message: `a mail to ${addr}` });
  return /\/join\/([a-z0-9]{24})\//.exec(mails.at(-1)!.replace(/=\r?\n/g, ''))![1]!;
}
async function signUp(key: string, email: string, name: string): Promise<{ session: WebSession; id: number; streams: string[] }> {
  const session = sessionOf(await webCall(t, 'POST', '/accounts/register', { params: { key, email, full_name: name, password: 'long-enough-1' } }));
  const me = (await webCall(t, 'GET', '/json/users/me', { session })).body;
  const subs = (await webCall(t, 'GET', '/json/users/me/subscriptions', { session })).body.subscriptions as Array<{ name: string }>;
  return { session, id: me.user_id, streams: subs.map((x) => x.name).sort() };
}
/** The newest private messages Notification Bot sent `to`. */
async function botNotes(to: TestUser): Promise<string[]> {
  const r = await t.api('GET', '/api/v1/messages', {
    as: to, params: { anchor: 'newest', num_before: 20, num_after: 0, apply_markdown: false, narrow: [{ operator: 'is', operand: 'private' }] },
  });
  return (r.body.messages as Array<{ sender_email: string; content: string }>).filter((m) => m.sender_email.startsWith('notification-bot@')).map((m) => m.content);
}

test('an email invite may name no stream: no streams unless the default ones are asked for', async () => {
  const none = fresh();
  assert.equal((await invite(u.admin, { invitee_emails: none, stream_ids: [] })).status, 200);
  assert.deepEqual((await signUp(await mailedKey(none), none, 'No Streams')).streams, []);

  const both = fresh();
  assert.equal((await invite(u.admin, { invitee_emails: both, stream_ids: [s.named.id], include_realm_default_subscriptions: true })).status, 200);
  assert.deepEqual((await signUp(await mailedKey(both), both, 'Both Kinds')).streams, ['lobby', 'named']);

  const onlyNamed = fresh();
  assert.equal((await invite(u.admin, { invitee_emails: onlyNamed, stream_ids: [s.named.id], include_realm_default_subscriptions: false })).status, 200);
  assert.deepEqual((await signUp(await mailedKey(onlyNamed), onlyNamed, 'Only Named')).streams, ['named']);

  const r = await invite(u.admin, { invitee_emails: fresh(), stream_ids: [], include_realm_default_subscriptions: 'x' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Argument "include_realm_default_subscriptions" is not valid JSON.']);
});

test('a reusable link: include_realm_default_subscriptions adds the default streams, without it none', async () => {
  for (const [params, expected] of [[{}, []], [{ include_realm_default_subscriptions: true }, ['lobby']]] as const) {
    const link = (await t.api('POST', '/api/v1/invites/multiuse', { as: u.admin, params })).body.invite_link as string;
    const key = /join\/([a-z0-9]+)\//.exec(link)![1]!;
    assert.deepEqual((await signUp(key, fresh(), `Linked ${++n}`)).streams, expected);
  }
});

test('notify_referrer_on_join: listed with the invite; Notification Bot tells the inviter, unless asked not to', async () => {
  const told = fresh();
  assert.equal((await invite(u.member, { invitee_emails: told, stream_ids: [] })).status, 200);
  const silent = fresh();
  assert.equal((await invite(u.member, { invitee_emails: silent, stream_ids: [], notify_referrer_on_join: false })).status, 200);
  const listed = (await t.api('GET', '/api/v1/invites', { as: u.member })).body.invites as Array<Record<string, unknown>>;
  assert.equal(listed.find((i) => i.email === told)!.notify_referrer_on_join, true);
  assert.equal(listed.find((i) => i.email === silent)!.notify_referrer_on_join, false);
  const link = (await t.api('POST', '/api/v1/invites/multiuse', { as: u.admin })).body.invite_link as string;
  const multi = (await t.api('GET', '/api/v1/invites', { as: u.admin })).body.invites.find((i: { link_url?: string }) => i.link_url === link);
  assert.equal('notify_referrer_on_join' in multi, false);

  const before = (await botNotes(u.member)).length;
  const joined = await signUp(await mailedKey(told), told, 'Told Person');
  const notes = await botNotes(u.member);
  assert.equal(notes.length, before + 1);
  assert.equal(notes.at(-1), `@_**Told Person|${joined.id}** accepted your invitation to join Zulip!`);
  await signUp(await mailedKey(silent), silent, 'Silent Person');
  assert.equal((await botNotes(u.member)).length, before + 1);
});

test('level 122: GET /invites without notify_referrer_on_join; an empty stream list refused', async () => {
  const old = await testApp({ featureLevel: 122 });
  try {
    const streams = await createStreams(old, { lobby: [old.owner] });
    const email = 'old@example.com';
    assert.equal((await old.api('POST', '/api/v1/invites', { params: { invitee_emails: email, stream_ids: [streams.lobby.id] } })).status, 200);
    const entry = (await old.api('GET', '/api/v1/invites')).body.invites.find((i: { email: string }) => i.email === email);
    assert.equal('notify_referrer_on_join' in entry, false);
    const r = await old.api('POST', '/api/v1/invites', { params: { invitee_emails: 'x@example.com', stream_ids: [] } });
    assert.deepEqual([r.status, r.body.msg], [400, 'You must specify at least one stream for invitees to join.']);
  } finally {
    await old.close();
  }
});
