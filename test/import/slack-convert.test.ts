import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openSlackSource, type SlackOptions } from '../../src/import/slack/index.js';
import { fakeSlack, SLACK_TOKEN, type FakeSlack } from '../helpers/fake-slack.js';
import { ImportError, type FileRecord, type ImportSource, type MessageChunk, type Row } from '../../src/import/source.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/slack/workspace');
const TOKEN = SLACK_TOKEN;
/** Shortly after the fixture's last message: everyone who posted counts as active (idle.ts). */
const NOW = 1578000000;

let slack: FakeSlack;
let requested: string[] = [];
before(async () => {
  slack = await fakeSlack();
  requested = slack.requested;
});
after(() => slack.close());

/** Slack's hosts, served by the fake: https://host/path -> its local server. */
const localFetch: typeof globalThis.fetch = (input, init) => slack.fetch(input, init);
const open = (extra: Partial<SlackOptions> = {}) =>
  openSlackSource(DIR, { emailDomain: 'example.org', maxFileBytes: 100, now: NOW, token: TOKEN, fetch: localFetch, ...extra });

async function chunksOf(s: ImportSource): Promise<MessageChunk[]> {
  const out: MessageChunk[] = [];
  for await (const c of s.messages()) out.push(c);
  return out;
}

/** Upload path ids are random (as Zulip's): each becomes P1, P2... in order of appearance. */
function namePaths<T>(value: T): T {
  const names = new Map<string, string>();
  const text = JSON.stringify(value).replace(/1\/[A-Za-z0-9_-]{24}\//g, (m) => {
    if (!names.has(m)) names.set(m, `P${names.size + 1}/`);
    return names.get(m)!;
  });
  return JSON.parse(text) as T;
}

async function readAll(stream: Readable): Promise<string> {
  let s = '';
  for await (const c of stream) s += String(c);
  return s;
}

const user = (id: number, email: string, full_name: string, role: number, more: Row = {}): Row => ({
  id, realm: 1, email, delivery_email: email, full_name, role, is_active: true, is_bot: false, bot_type: null, bot_owner: null,
  is_mirror_dummy: false, timezone: 'America/New_York', avatar_source: 'G', avatar_version: 1, date_joined: NOW, last_login: NOW, ...more,
});
const bot = { is_bot: true, bot_type: 1 };
const idle = { long_term_idle: true, last_active_message_id: 0 };
const stream = (id: number, name: string, description: string, date_created: number, more: Row = {}): Row => ({
  id, realm: 1, name, description, date_created, deactivated: false, invite_only: false, history_public_to_subscribers: true,
  is_web_public: false, stream_post_policy: 1, ...more,
});

test('the realm tables: people, roles, bots, fields, streams, huddles, recipients, subscriptions, custom emoji', async () => {
  const s = await open();
  assert.equal(s.messageCount, 17);
  assert.deepEqual(s.realm.zerver_realm, [{
    id: 1, name: '', string_id: '', description: 'Organization imported from Slack!', date_created: NOW,
    new_stream_announcements_stream: 1, zulip_update_announcements_stream: 1,
  }]);
  assert.deepEqual(s.realm.zerver_userprofile, [
    // The primary owner first; alice.old shares her email and is merged into her.
    user(1, 'alice@example.com', 'Alice Owner', 100, { timezone: 'Europe/Paris', avatar_source: 'U' }),
    user(2, 'bob@example.com', 'Bob Admin', 200),
    user(3, 'carol@example.com', 'Carol Guest', 600, { timezone: 'America/Chicago' }),
    // Dave and Frank never posted: long-term idle (idle.ts), as Zulip's converter makes them.
    user(4, 'dave@example.com', 'dave', 400, { is_active: false, ...idle }),
    user(5, 'helper-bot@example.org', 'Helper Bot', 400, bot),
    user(6, 'imported-slackbot-bot@example.org', 'slackbot', 400, bot),
    user(7, 'erin@example.org', 'Erin Ultra', 600, { timezone: 'Asia/Tokyo' }),
    user(8, 'frank@example.com', 'Frank Owner', 100, idle),
    // An integration bot, known only from its messages' bot_profile.
    user(9, 'ci-bot@example.org', 'CI Bot', 400, { ...bot, avatar_source: 'U' }),
  ]);
  assert.deepEqual(s.realm.zerver_customprofilefield, [
    { id: 1, realm: 1, name: 'phone', field_type: 1, hint: '', field_data: '', order: 1 },
    { id: 2, realm: 1, name: 'Slack custom field 2', field_type: 2, hint: '', field_data: '', order: 2 },
    { id: 3, realm: 1, name: 'Slack custom field 3', field_type: 1, hint: '', field_data: '', order: 3 },
  ]);
  assert.deepEqual(s.realm.zerver_customprofilefieldvalue, [
    { id: 1, user_profile: 1, field: 2, value: 'Engineering', rendered_value: null },
    { id: 2, user_profile: 1, field: 1, value: '+1 555 0100', rendered_value: null },
    { id: 3, user_profile: 7, field: 2, value: 'Research and development, the long way round, since 2001', rendered_value: null },
  ]);
  assert.deepEqual(s.realm.zerver_stream, [
    stream(1, 'general', 'Company-wide announcements', 1500000000),
    stream(2, 'random', 'Off topic', 1500000100),
    stream(3, 'old-stuff', 'Gone', 1500000200, { deactivated: true }),
    stream(4, 'secret', 'Private plans', 1500000300, { invite_only: true, history_public_to_subscribers: false }),
  ]);
  assert.deepEqual(s.realm.zerver_defaultstream, [{ id: 1, realm: 1, stream: 1 }, { id: 2, realm: 1, stream: 2 }]);
  assert.deepEqual(s.realm.zerver_huddle, [{ id: 1, group_size: 3 }]);
  assert.deepEqual(s.realm.zerver_recipient.map((r) => [r.id, r.type, r.type_id]), [
    [1, 2, 1], [2, 2, 2], [3, 2, 3], [4, 2, 4], [5, 3, 1],
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((u) => [5 + u, 1, u]),
  ]);
  const subs = s.realm.zerver_subscription;
  assert.deepEqual(subs.map((r) => r.id), subs.map((_r, i) => i + 1));
  assert.ok(subs.every((r) => r.active === true && r.is_muted === false && /^#[0-9a-f]{6}$/.test(r.color as string)));
  assert.deepEqual(subs.map((r) => [r.recipient, r.user_profile]), [
    [1, 1], [1, 2], [1, 3], [1, 7], [2, 1], [2, 2], [3, 1], [4, 1], [4, 2], [5, 1], [5, 2], [5, 7],
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((u) => [5 + u, u]),
  ]);
  // emoji.list, with the token: aliases and images elsewhere than Slack's emoji host are left out.
  assert.deepEqual(s.realm.zerver_realmemoji, [{ id: 1, realm: 1, name: 'partyparrot', file_name: '1.gif', deactivated: false, author: null }]);
  assert.deepEqual(s.records.emoji, [{ path: '1/emoji/images/1.gif', s3_path: '1/emoji/images/1.gif', file_name: '1.gif', name: 'partyparrot', id: 1, realm_id: 1 }]);
  const avatar = (u: number, ext: string) => ({ path: `1/${u}.${ext}`, s3_path: `1/${u}.${ext}`, realm_id: 1, user_profile_id: u, avatar_version: 1, content_type: 'image/png', last_modified: NOW });
  assert.deepEqual(s.records.avatars, [avatar(1, 'png'), avatar(1, 'original'), avatar(9, 'png'), avatar(9, 'original')]);
  assert.equal(await readAll(await s.openFile('avatars', s.records.avatars[0]!)), 'alice-avatar');
  assert.equal(await readAll(await s.openFile('avatars', s.records.avatars[3]!)), 'ci-icon');
  assert.equal(await readAll(await s.openFile('emoji', s.records.emoji[0]!)), 'GIF89a');
  await s.close();
});

const TOPIC = 'imported from Slack';
const THREAD = '2020-01-01 Thread start about **deploys**';
// [id, sender, recipient, topic, content, date_sent]
const MESSAGES: [number, number, number, string, string, number][] = [
  [1, 1, 1, TOPIC, 'Hello @**Bob Admin** and @**all**, see #**random** and [the site](https://example.com/a) & **bold** *it* ~~st~~ <3', 1577880000.0001],
  [2, 1, 3, TOPIC, 'old times', 1577880010],
  [3, 2, 4, TOPIC, 'private plans\n[Plan](/user_uploads/P1/plan.pdf)', 1577880050],
  [4, 2, 6, '', 'dm hi @**Alice Owner**', 1577880150],
  [5, 1, 7, '', 'hi back', 1577880160],
  [6, 2, 1, THREAD, 'Thread start about **deploys**', 1577880200.0002],
  [7, 3, 1, THREAD, 'a reply', 1577880300.0003],
  [8, 9, 1, TOPIC, '## [Build 7](https://ci.example.com/7)\n\npassed\n\n**Branch**: main\n\n<time:2020-01-01T12:06:40+00:00>', 1577880400.0004],
  [9, 2, 1, TOPIC, '/me waves', 1577880500.0005],
  [10, 1, 1, TOPIC, 'two files\n[Notes](/user_uploads/P2/notes.txt)\n[A picture](/user_uploads/P3/pic.png)\n[Design doc](https://docs.google.com/document/d/1)', 1577880600.0006],
  [11, 1, 1, `${THREAD} (2)`, 'Thread start about **deploys**', 1577880700.0007],
  [12, 3, 1, `${THREAD} (2)`, 'second thread reply', 1577880800.0008],
  [13, 1, 1, THREAD, 'a later reply', 1577966400.0001],
  [14, 7, 5, '', 'group hi @**Alice Owner**', 1577966450],
  [15, 2, 1, TOPIC, 'ping @**dave** and @**Erin Ultra** and <@U6|wrong> mail mailto:x@example.com', 1577966500.0002],
  [16, 5, 1, TOPIC, 'I am **helpful**', 1577966600.0003],
  [17, 2, 1, '2020-01-02 Thread start about **deploys**', 'Thread start about **deploys**', 1577966700.0004],
];
const GENERAL = [1, 2, 3, 7];
// [user, message, flags]: read (1) for all, mentioned (8), private (2048)
const USERMESSAGES = [
  [1, 1, 1], [2, 1, 9], [3, 1, 1], [7, 1, 1], [1, 2, 1], [1, 3, 1], [2, 3, 1], [1, 4, 2057], [2, 4, 2049], [2, 5, 2049], [1, 5, 2049],
  ...[6, 7, 8, 9, 10, 11, 12, 13].flatMap((m) => GENERAL.map((u) => [u, m, 1])),
  [1, 14, 2057], [2, 14, 2049], [7, 14, 2049],
  [1, 15, 1], [2, 15, 1], [3, 15, 1], [7, 15, 9],
  ...[16, 17].flatMap((m) => GENERAL.map((u) => [u, m, 1])),
];

test('messages: time order across conversations, topics, threads, markup, edits, reactions, files, user messages', async () => {
  const s = await open();
  const chunks = namePaths(await chunksOf(s));
  assert.equal(chunks.length, 1);
  const [c] = chunks as [Required<MessageChunk>];
  assert.deepEqual(c.zerver_message.map((m) => [m.id, m.sender, m.recipient, m.subject, m.content, m.date_sent]), MESSAGES);
  const flagsOf = (id: number) => { const m = c.zerver_message[id - 1]!; return [m.has_attachment, m.has_image, m.has_link, m.is_channel_message]; };
  assert.deepEqual(c.zerver_message[0], {
    id: 1, realm: 1, sender: 1, recipient: 1, subject: TOPIC, content: MESSAGES[0]![4], rendered_content: null, rendered_content_version: 1,
    date_sent: 1577880000.0001, last_edit_time: 1577880100, edit_history: null, sending_client: 5,
    has_attachment: false, has_image: false, has_link: true, is_channel_message: true,
  });
  assert.ok(c.zerver_message.slice(1).every((m) => m.last_edit_time === null));
  assert.deepEqual(flagsOf(3), [true, false, true, true]);
  assert.deepEqual(flagsOf(4), [false, false, false, false]);
  assert.deepEqual(flagsOf(10), [true, true, true, true]);
  assert.deepEqual(flagsOf(14), [false, false, false, false]);
  assert.deepEqual(c.zerver_usermessage.map((u) => [u.user_profile, u.message, u.flags_mask]), USERMESSAGES);
  assert.deepEqual(c.zerver_usermessage.map((u) => u.id), USERMESSAGES.map((_u, i) => i + 1));
  // +1 and +1::skin-tone-2 merged; partyparrot is the custom emoji; unknown names and people left out.
  assert.deepEqual(c.zerver_reaction, [
    { id: 1, message: 1, user_profile: 2, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
    { id: 2, message: 1, user_profile: 3, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
    { id: 3, message: 1, user_profile: 7, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
    { id: 4, message: 1, user_profile: 1, emoji_name: 'partyparrot', emoji_code: '1', reaction_type: 'realm_emoji' },
  ]);
  const attachment = (id: number, owner: number, message: number, p: string, file_name: string, size: number, create_time: number, content_type: string, is_realm_public: boolean) =>
    ({ id, realm: 1, owner, messages: [message], path_id: `${p}/${file_name}`, file_name, size, create_time, content_type, is_realm_public, is_web_public: false });
  assert.deepEqual(c.zerver_attachment, [
    attachment(1, 2, 3, 'P1', 'plan.pdf', 5, 1577880040, 'application/pdf', false),
    attachment(2, 1, 10, 'P2', 'notes.txt', 12, 1577880590, 'text/plain', true),
    attachment(3, 1, 10, 'P3', 'pic.png', 8, 1577880595, 'image/png', true),
  ]);
  const upload = (p: string, user_profile_id: number, email: string, size: number, content_type: string, last_modified: number) =>
    ({ path: p, s3_path: p, realm_id: 1, user_profile_id, user_profile_email: email, size, content_type, last_modified });
  assert.deepEqual(namePaths(s.records.uploads), [
    upload('P1/plan.pdf', 2, 'bob@example.com', 5, 'application/pdf', 1577880040),
    upload('P2/notes.txt', 1, 'alice@example.com', 12, 'text/plain', 1577880590),
    upload('P3/pic.png', 1, 'alice@example.com', 8, 'image/png', 1577880595),
  ]);

  // notes.txt is in the export; the two others are fetched from Slack with the token.
  requested.length = 0;
  const [plan, notes, pic] = s.records.uploads as [Row & { path: string }, Row & { path: string }, Row & { path: string }];
  assert.equal(await readAll(await s.openFile('uploads', notes)), 'hello notes\n');
  assert.deepEqual(requested, []);
  assert.equal(await readAll(await s.openFile('uploads', pic)), 'PNGBYTES');
  assert.equal(await readAll(await s.openFile('uploads', plan)), '%PDF-');
  assert.deepEqual(requested, ['/files.slack.com/files-pri/T1-F2/pic.png', '/files.slack.com/files-pri/T1-F5/plan.pdf']);

  // More bytes than the record declares fail the stream; a record not made here is refused.
  await assert.rejects(readAll(await s.openFile('uploads', { ...pic, size: 3 })), /bigger than 3 bytes/);
  await assert.rejects(s.openFile('uploads', { ...notes, size: 4 }), (e) => e instanceof ImportError && /12 bytes, more than the 4 declared/.test(e.message));
  await assert.rejects(s.openFile('uploads', { path: '1/x/y' }), /not one this export made/);
  await s.close();
});

test('long-term idle: who sent 10 messages or fewer, none in the last 60 days, gets rows only for private messages and mentions', async () => {
  const chunksAt = async (now: number) => (await chunksOf(await open({ now })))[0] as Required<MessageChunk>;
  // A year on, nobody has sent more than 10 of the fixture's 17 messages, or any recently.
  const later = await chunksAt(NOW + 365 * 86_400);
  const profiles = (await open({ now: NOW + 365 * 86_400 })).realm.zerver_userprofile!;
  const idle = new Set(profiles.filter((p) => p.long_term_idle === true).map((p) => p.id as number));
  assert.deepEqual([...idle], [1, 2, 3, 4, 7, 8]);
  assert.ok(profiles.every((p) => (p.long_term_idle === true) === (p.last_active_message_id === 0)));
  assert.ok(profiles.filter((p) => p.is_bot === true).every((p) => p.long_term_idle === undefined), 'bots are never idle');
  // The rows are those of the import a day after, less idle people's on ordinary stream messages.
  const channel = new Set((await chunksAt(NOW)).zerver_message.filter((m) => m.is_channel_message === true).map((m) => m.id));
  const expected = USERMESSAGES.filter(([u, m, flags]) => !channel.has(m) || !idle.has(u) || (flags & 8) !== 0);
  assert.ok(expected.length < USERMESSAGES.length && expected.some(([u, m]) => idle.has(u) && channel.has(m)), 'a mention of an idle person keeps its row');
  assert.deepEqual(later.zerver_usermessage.map((u) => [u.user_profile, u.message, u.flags_mask]), expected);
  // More than 10 messages make a person active whatever their age; one in the last 60 days too.
  const { SenderActivity } = await import('../../src/import/slack/idle.js');
  const activity = new SenderActivity(NOW);
  for (let i = 0; i < 11; i++) activity.note('U1', NOW - 400 * 86_400);
  for (let i = 0; i < 10; i++) activity.note('U2', NOW - 400 * 86_400);
  activity.note('U3', NOW - 59 * 86_400);
  activity.note('U4', NOW - 61 * 86_400);
  assert.deepEqual(['U1', 'U2', 'U3', 'U4', 'U5'].map((u) => activity.isActive(u)), [true, false, true, false, false]);
});

test('files over maxFileBytes are refused when opened, and Slack files need the token', async () => {
  const small = await open({ maxFileBytes: 6 });
  await chunksOf(small);
  const [plan, notes, pic] = small.records.uploads;
  await assert.rejects(small.openFile('uploads', pic!), /8 bytes, more than the 6 allowed/);
  await assert.rejects(small.openFile('uploads', notes!), /12 bytes, more than the 6 allowed/);
  assert.equal(await readAll(await small.openFile('uploads', plan!)), '%PDF-');

  const tokenless = await open({ token: undefined });
  assert.deepEqual(tokenless.realm.zerver_realmemoji, []);
  const [c] = await chunksOf(tokenless);
  // Without the custom emoji list, partyparrot is unknown and left out.
  assert.deepEqual(c!.zerver_reaction!.map((r) => r.emoji_name), ['+1', '+1', '+1']);
  await assert.rejects(tokenless.openFile('uploads', tokenless.records.uploads[2]!), /answered HTTP 403/);
  assert.equal(await readAll(await tokenless.openFile('uploads', tokenless.records.uploads[1]!)), 'hello notes\n');

  await assert.rejects(open({ token: 'xoxb-wrong' }), /emoji.list failed: HTTP 403/);
});

test('chunks hold at most chunkSize messages, ids ascending across chunks, each with its own rows', async () => {
  const s = await open({ chunkSize: 5 });
  const chunks = await chunksOf(s);
  assert.deepEqual(chunks.map((c) => c.zerver_message.map((m) => m.id)), [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15], [16, 17]]);
  for (const c of chunks) {
    const ids = new Set(c.zerver_message.map((m) => m.id));
    assert.ok(c.zerver_usermessage.every((u) => ids.has(u.message as number)));
    assert.ok(c.zerver_attachment!.every((a) => (a.messages as number[]).every((m) => ids.has(m))));
    assert.ok(c.zerver_reaction!.every((r) => ids.has(r.message as number)));
  }
  assert.deepEqual(chunks.map((c) => c.zerver_attachment!.length), [1, 2, 0, 0]);
  // A second pass makes the same messages anew. The uploads records are those of the chunk
  // given last with files (ImportSource.records): what the source keeps does not grow with the export.
  let again = 0;
  let firstRecord: FileRecord | undefined;
  for await (const c of s.messages()) {
    again += c.zerver_message.length;
    if (c.zerver_attachment!.length > 0) assert.deepEqual(s.records.uploads.map((r) => r.s3_path), c.zerver_attachment!.map((a) => a.path_id));
    firstRecord ??= s.records.uploads[0];
    // Each of them opens while its chunk is the last given.
    for (const r of s.records.uploads) await readAll(await s.openFile('uploads', r));
  }
  assert.equal(again, 17);
  assert.equal(s.records.uploads.length, 2);
  // The first chunk's file, opened once its chunk is done with: the source no longer knows it.
  await assert.rejects(s.openFile('uploads', firstRecord!), /not one this export made/);
});
