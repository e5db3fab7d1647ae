import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openMattermostSource } from '../../src/import/mattermost/index.js';
import { ImportError } from '../../src/import/source.js';
import { scratchDir } from '../helpers/scratch.js';

const OPTS = { emailDomain: 'import.invalid', maxFileBytes: 1000 };
const VERSION = '{"type":"version","version":1}';
const TEAM = (name: string) => JSON.stringify({ type: 'team', team: { name, display_name: name } });
const USER = (username: string, team = 'acme') => JSON.stringify({ type: 'user', user: { username, email: `${username}@x.test`, teams: [{ name: team, roles: 'team_user', channels: [{ name: 'general', roles: 'channel_user' }] }] } });
const CHANNEL = JSON.stringify({ type: 'channel', channel: { team: 'acme', name: 'general', display_name: 'General', type: 'O' } });
const POST = (user: string, at: number, channel = 'general') => JSON.stringify({ type: 'post', post: { team: 'acme', channel, user, message: `m${at}`, create_at: at } });

function exportDir(lines: string[] | undefined, files: Record<string, string> = {}): string {
  const dir = scratchDir('parley-mm-');
  if (lines) fs.writeFileSync(path.join(dir, 'export.json'), lines.join('\n') + '\n');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function refused(dir: string, message: RegExp, team?: string): Promise<void> {
  await assert.rejects(openMattermostSource(dir, { ...OPTS, team }), (e: unknown) => {
    assert.ok(e instanceof ImportError, String(e));
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });
}

test('refusals: each is an ImportError with one line naming what is wrong', async () => {
  await refused(exportDir(undefined), /no export\.json/);
  await refused(exportDir(['{"type":"version","version":2}', TEAM('acme')]), /line 1: export version 2 is not supported/);
  await refused(exportDir([TEAM('acme')]), /line 1: the first line must be the version line/);
  await refused(exportDir([VERSION, TEAM('acme'), '{"type":"user", oops']), /line 3: not valid JSON/);
  await refused(exportDir([VERSION, TEAM('acme'), '[1,2]']), /line 3: not an object/);
  await refused(exportDir([VERSION, TEAM('acme'), TEAM('beta')]), /2 teams, choose one with --team: acme, beta/);
  await refused(exportDir([VERSION, TEAM('acme'), TEAM('beta')]), /no team "gamma" \(its teams: acme, beta\)/, 'gamma');
  await refused(exportDir([VERSION, TEAM('acme'), CHANNEL, USER('ann'), POST('ann', 1), POST('zed', 2)]), /line 6: a post by unknown user "zed"/);
  const attach = (p: string) => JSON.stringify({ type: 'post', post: { team: 'acme', channel: 'general', user: 'ann', message: '', create_at: 1, attachments: [{ path: p }] } });
  await refused(exportDir([VERSION, TEAM('acme'), CHANNEL, USER('ann'), attach('nope.txt')]), /line 5: attachment: the file "nope\.txt" is missing/);
  await refused(exportDir([VERSION, TEAM('acme'), CHANNEL, USER('ann'), attach('../export.json')]), /not a path inside the export/);
  await refused(exportDir([VERSION, TEAM('acme'), CHANNEL, USER('ann'), attach('big.bin')], { 'data/big.bin': 'x'.repeat(1001) }), /1001 bytes, more than the limit of 1000/);
  const emoji = JSON.stringify({ type: 'emoji', emoji: { name: 'gone', image: 'exported_emoji/x/image.png' } });
  await refused(exportDir([VERSION, TEAM('acme'), emoji]), /line 3: emoji "gone": the file .* is missing/);
});

test('a chosen team of several: its channels and posts only, and no direct messages (Zulip\'s rule)', async () => {
  const dm = JSON.stringify({ type: 'direct_post', direct_post: { channel_members: ['ann', 'bo'], user: 'ann', message: 'dm', create_at: 5 } });
  const other = JSON.stringify({ type: 'post', post: { team: 'beta', channel: 'x', user: 'ghost', message: 'no', create_at: 3 } });
  const src = await openMattermostSource(exportDir([VERSION, TEAM('acme'), TEAM('beta'), CHANNEL, USER('ann'), USER('bo'), POST('ann', 4), other, dm]), { ...OPTS, team: 'acme' });
  assert.deepEqual(src.realm.zerver_userprofile!.map((u) => u.short_name), ['ann', 'bo']);
  assert.equal(src.messageCount, 1);
  const messages = [];
  for await (const c of src.messages()) messages.push(...c.zerver_message);
  assert.deepEqual(messages.map((m) => m.content), ['m4']);
});

test('posts come out in date order across channels, in chunks of at most 1000, read back from the file by position', async () => {
  const channel2 = JSON.stringify({ type: 'channel', channel: { team: 'acme', name: 'random', display_name: 'Random', type: 'O' } });
  const lines = [VERSION, TEAM('acme'), CHANNEL, channel2, USER('ann')];
  // 2500 posts, the two channels interleaved backwards in the file, one with a reply dated earliest.
  for (let i = 2500; i >= 1; i--) lines.push(POST('ann', 10_000 + i * 10, i % 2 === 0 ? 'general' : 'random'));
  lines.push(JSON.stringify({ type: 'post', post: { team: 'acme', channel: 'random', user: 'ann', message: 'root', create_at: 50_000, replies: [{ user: 'ann', message: 'reply', create_at: 5 }] } }));
  const src = await openMattermostSource(exportDir(lines), OPTS);
  assert.equal(src.messageCount, 2502);
  const sizes: number[] = [];
  const dates: number[] = [];
  const contents: string[] = [];
  let lastId = 0;
  for await (const c of src.messages()) {
    sizes.push(c.zerver_message.length);
    for (const m of c.zerver_message) {
      assert.equal(m.id, lastId + 1);
      lastId = m.id as number;
      dates.push(m.date_sent as number);
      contents.push(m.content as string);
    }
  }
  assert.deepEqual(sizes, [1000, 1000, 502]);
  assert.deepEqual(dates, [...dates].sort((a, b) => a - b));
  assert.equal(contents[0], 'reply');
  assert.equal(contents[1], 'm10010');
  assert.equal(contents[2500], 'm35000');
  assert.equal(contents[2501], 'root');
});
