import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openSlackSource } from '../../src/import/slack/index.js';
import type { Row } from '../../src/import/source.js';
import { zulipFixtures } from '../helpers/zulip-fixtures.js';
import { scratchDir } from '../helpers/scratch.js';

/**
 * Zulip's own Slack thread fixtures (zerver/tests/fixtures/slack_fixtures/exported_messages_fixtures),
 * each laid out as a Slack export of its own, with the topic names Zulip's test_slack_importer.py
 * expects of them.
 */
const fixtures = zulipFixtures('slack');
const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

// The people of Zulip's test_channel_message_to_zerver_message_with_threads.
const USERS = [
  { id: 'U066MTL5U', name: 'john doe', deleted: false, real_name: 'John', profile: {} },
  { id: 'U061A5N1G', name: 'jane doe', deleted: false, real_name: 'Jane', profile: {} },
  { id: 'U061A1R2R', name: 'jon', deleted: false, real_name: 'Jon', profile: { email: 'jon@example.com' } },
];
const ids = USERS.map((u) => u.id);

/** A Slack export holding one of Zulip's message fixtures: each message in its channel's folder, by UTC day. */
function exportOf(fixture: string): string {
  const messages = JSON.parse(fs.readFileSync(path.join((fixtures as { dir: string }).dir, 'exported_messages_fixtures', fixture), 'utf8')) as Row[];
  const dir = scratchDir('parley-zulip-slack-');
  made.push(dir);
  const write = (rel: string, v: unknown) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), JSON.stringify(v));
  };
  write('users.json', USERS);
  write('channels.json', ['random', 'general'].map((name, i) => ({ id: `C${i}`, name, created: 1, is_archived: false, members: ids, purpose: { value: '' } })));
  const byFile = new Map<string, Row[]>();
  for (const { channel_name, ...m } of messages) {
    const file = `${String(channel_name)}/${new Date(Number(m.ts) * 1000).toISOString().slice(0, 10)}.json`;
    byFile.set(file, [...(byFile.get(file) ?? []), m]);
  }
  for (const [file, ms] of byFile) write(file, ms);
  return dir;
}

async function topics(fixture: string): Promise<[string, string][]> {
  const s = await openSlackSource(exportOf(fixture), { emailDomain: 'example.org', maxFileBytes: 1 << 20, now: 1 });
  const out: [string, string][] = [];
  for await (const c of s.messages()) for (const m of c.zerver_message) out.push([m.content as string, m.subject as string]);
  return out;
}

const skip = 'skip' in fixtures ? fixtures.skip : undefined;

test("Zulip's thread fixtures: a thread's parent and replies share a topic of its date and first words", { skip }, async () => {
  assert.deepEqual(await topics('normal_thread.json'), [
    ['message body text', '2015-06-12 message body text'],
    ['random', '2015-06-12 message body text'],
    // A reply naming another parent than the thread's poster is a thread of its own, as in Zulip.
    ['another reply', '2018-10-18 another reply'],
    ['another thread message', '2018-10-18 another thread message'],
  ]);
});

test("Zulip's thread fixtures: colliding names are numbered, long ones cut at 60 characters", { skip }, async () => {
  assert.deepEqual(await topics('threads_with_colliding_topic_names.json'), [
    ['message body text', '2015-06-12 message body text'],
    ['message body text', '2015-06-12 message body text (2)'],
    ['random', '2015-06-12 message body text'],
    ['The first reply to the third thread', '2015-06-12 message body text (2)'],
  ]);
  const long = await topics('thread_with_long_topic_name.json');
  assert.deepEqual(long, [
    ['random message but it is too long for the thread topic name', '2015-08-18 random message but it is too long for the thread…'],
    ['replying to the second thread :)', '2015-08-18 random message but it is too long for the thread…'],
  ]);
  assert.equal(Array.from(long[0]![1]).length, 60);
});

test("Zulip's thread fixtures: mentions, formatting and file links as they read in the topic", { skip }, async () => {
  assert.deepEqual(await topics('thread_with_mention_syntax_in_topic_name.json'), [
    ['@**Jon** please reply to this message', '2026-04-23 @**Jon** please reply to this message'],
    ['yes?', '2026-04-23 @**Jon** please reply to this message'],
  ]);
  assert.deepEqual(await topics('thread_with_text_formattings_in_topic_name.json'), [
    ['**foo** *bar* ~~baz~~ [qux](https://chat.zulip.org)', '2019-01-10 **foo** *bar* ~~baz~~ [qux](https://chat.zulip.o…'],
    ['Delicious', '2019-01-10 **foo** *bar* ~~baz~~ [qux](https://chat.zulip.o…'],
  ]);
  const [[look, topic], [reply, replyTopic]] = (await topics('thread_with_file_link_formatting_in_topic_name.json')) as [[string, string], [string, string]];
  assert.match(look, /^Look!\n\[Apple\]\(\/user_uploads\/1\/[A-Za-z0-9_-]{24}\/apple\.png\)$/);
  assert.ok(topic.startsWith('2018-09-16 Look!\n[Apple](/user_uploads/'), topic);
  assert.deepEqual([reply, replyTopic], ['Delicious', topic]);
});
