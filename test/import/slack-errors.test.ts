import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSlackSource } from '../../src/import/slack/index.js';
import { ImportError } from '../../src/import/source.js';
import { scratchDir } from '../helpers/scratch.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/slack/workspace');
const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A copy of the small workspace with one thing broken. */
function broken(change: (dir: string) => void): string {
  const dir = scratchDir('parley-slack-');
  made.push(dir);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  change(dir);
  return dir;
}
const edit = (dir: string, rel: string, f: (v: unknown[]) => unknown) =>
  fs.writeFileSync(path.join(dir, rel), JSON.stringify(f(JSON.parse(fs.readFileSync(path.join(dir, rel), 'utf8')) as unknown[])));

const OPTS = { emailDomain: 'example.org', maxFileBytes: 100, now: 1 };

/** Refused with an ImportError of one line matching `line`, whether at open or while the messages stream. */
async function refuses(dir: string, line: RegExp) {
  const attempt = async () => {
    const s = await openSlackSource(dir, OPTS);
    for await (const _chunk of s.messages()) { /* drained */ }
  };
  await assert.rejects(attempt, (e) => {
    assert.ok(e instanceof ImportError, String(e));
    assert.ok(!e.message.includes('\n'), e.message);
    assert.match(e.message, line);
    return true;
  });
}

test('an export without users.json is refused', async () => {
  await refuses(broken((d) => fs.rmSync(path.join(d, 'users.json'))), /^Slack export: users\.json is missing$/);
});

test('an export without channels.json is refused', async () => {
  await refuses(broken((d) => fs.rmSync(path.join(d, 'channels.json'))), /^Slack export: channels\.json is missing$/);
});

test('a file of bad JSON is refused, naming the file', async () => {
  await refuses(broken((d) => fs.writeFileSync(path.join(d, 'channels.json'), '[{"id": "C1",')), /^Slack export: channels\.json is not valid JSON \(/);
  await refuses(broken((d) => fs.writeFileSync(path.join(d, 'general/2020-01-02.json'), '{oops')), /^Slack export: general\/2020-01-02\.json is not valid JSON/);
  await refuses(broken((d) => fs.writeFileSync(path.join(d, 'users.json'), '{"members": []}')), /^Slack export: users\.json is not a JSON array$/);
});

test('a message from someone not in users.json is refused, naming the file and the id', async () => {
  const dir = broken((d) => edit(d, 'general/2020-01-02.json', (ms) => [...ms, { type: 'message', user: 'U999', ts: '1577966800.000000', text: 'who?' }]));
  await refuses(dir, /^Slack export: general\/2020-01-02\.json: the message of ts 1577966800\.000000 is from U999, who is not in users\.json$/);
});

test('a member nobody knows, a message without ts and a user without an id are refused', async () => {
  await refuses(broken((d) => edit(d, 'groups.json', (gs) => [{ ...(gs[0] as object), members: ['U1', 'UX'] }])),
    /^Slack export: groups\.json entry 0 lists member UX, who is not in users\.json$/);
  await refuses(broken((d) => edit(d, 'secret/2020-01-01.json', () => [{ type: 'message', user: 'U1', text: 'no time' }])),
    /^Slack export: secret\/2020-01-01\.json has a message without a valid "ts"$/);
  await refuses(broken((d) => edit(d, 'users.json', (us) => [...us, { name: 'anon', profile: {} }])),
    /^Slack export: users\.json entry 9 has no string "id"$/);
});
