/**
 * Zulip's own Mattermost fixtures (zerver/tests/fixtures/mattermost_fixtures: its two
 * export.json files, kept outside the repository), imported end to end. Their images are
 * binary files the fixture store does not hold: the test puts stand-ins at their paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { testApp, HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { zulipFixtures } from '../helpers/zulip-fixtures.js';
import { runImport } from '../../src/import/run.js';
import { users } from '../../src/store/repos/users.js';
import { scratchDir } from '../helpers/scratch.js';

type Json = Record<string, any>;
const fixtures = zulipFixtures('mattermost');

/** The fixture's export.json in a folder of its own, with a stand-in for every file it names. */
async function exportFolder(name: string): Promise<string> {
  const dir = scratchDir('parley-mm-zulip-');
  const text = fs.readFileSync(path.join((fixtures as { dir: string }).dir, name, 'export.json'), 'utf8');
  fs.writeFileSync(path.join(dir, 'export.json'), text);
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#0a0' } }).png().toBuffer();
  for (const line of text.split('\n').filter(Boolean)) {
    const o = JSON.parse(line) as Json;
    const item = o[o.type] as Json;
    const files = [...(o.type === 'emoji' ? [`${item.image}`] : []), ...((item.attachments ?? []) as Json[]).map((a) => `data/${a.path}`)];
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), f.endsWith('.png') || f.endsWith('.jpg') ? png : 'a file');
    }
  }
  return dir;
}

async function as(t: TestApp, realmId: number, email: string): Promise<TestUser> {
  return asTestUser((await users.findByDeliveryEmail(t.app.ctx.store.db, realmId, email))!);
}

test("Zulip's Mattermost fixture: one team of two, its people, channels, posts, replies and reactions", { skip: 'skip' in fixtures ? fixtures.skip : false }, async () => {
  const t = await testApp();
  try {
    const result = await runImport(t.app.ctx, 'mattermost', await exportFolder('main'), { stringId: 'hogwarts', team: 'gryffindor' });
    const host = `hogwarts.${HOST}`;
    const harry = await as(t, result.realmId, 'harry@zulip.com');
    const ron = await as(t, result.realmId, 'ron@zulip.com');
    const api = async (who: TestUser, url: string, params: Record<string, unknown> = {}) => (await t.api('GET', url, { as: who, host, params })).body as Json;
    const members = (await api(harry, '/api/v1/users')).members as Json[];
    assert.ok(members.find((m) => m.user_id === harry.id)!.role <= 200);
    assert.equal(members.find((m) => m.user_id === ron.id)!.full_name, 'Ron Weasley');
    assert.ok(!members.some((m) => m.delivery_email === 'pansy@zulip.com' || m.email === 'pansy@zulip.com'), "the other team's people stay out");
    const streams = ((await api(harry, '/api/v1/streams', { include_all_active: 'true' })).streams as Json[]).map((s) => [s.name, s.invite_only]).sort();
    assert.deepEqual(streams, [['Dumbledores army', true], ['Gryffindor common room', false], ['Gryffindor quidditch team', false]]);
    const all = (await api(harry, '/api/v1/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: '[]' })).messages as Json[];
    const text = (m: Json) => String(m.content);
    const hello = all.find((m) => text(m).includes('Hello world'))!;
    assert.deepEqual((hello.reactions as Json[]).map((r) => r.emoji_name).sort(), ['smile', 'tick', 'world_map']);
    assert.ok((hello.reactions as Json[]).some((r) => r.emoji_name === 'tick' && r.reaction_type === 'realm_emoji'));
    assert.match(text(all.find((m) => text(m).includes('Welcome mate'))!), new RegExp(`data-user-id="${ron.id}"`));
    assert.ok(all.some((m) => text(m).includes('The weather is so hot!') && m.display_recipient === 'Dumbledores army'), 'a reply');
    // In date order, whatever the order of the file.
    assert.deepEqual(all.map((m) => m.timestamp), [...all.map((m) => m.timestamp)].sort((a, b) => a - b));
    assert.ok(!all.some((m) => text(m).includes('Hello folks')), "the other team's posts stay out");
  } finally {
    await t.close();
  }
});

test("Zulip's Mattermost direct-channel fixture: direct and group messages with their attachment", { skip: 'skip' in fixtures ? fixtures.skip : false }, async () => {
  const t = await testApp();
  try {
    const result = await runImport(t.app.ctx, 'mattermost', await exportFolder('direct_channel'), { stringId: 'dms' });
    const host = `dms.${HOST}`;
    const harry = await as(t, result.realmId, 'harry@zulip.com');
    const ginny = await as(t, result.realmId, 'ginny@zulip.com');
    const get = async (who: TestUser) => ((await t.api('GET', '/api/v1/messages', { as: who, host, params: { anchor: 'oldest', num_before: 0, num_after: 100, narrow: '[]' } })).body as Json).messages as Json[];
    const mine = await get(harry);
    const dm = mine.find((m) => String(m.content).includes('hey harry'))!;
    assert.equal(dm.type, 'private');
    assert.equal((dm.display_recipient as Json[]).length, 2);
    const link = /href="(\/user_uploads\/[^"]+)"/.exec(dm.content)![1]!;
    assert.equal((await t.api('GET', link, { as: harry, host })).status, 200);
    assert.equal((await t.api('GET', link, { as: ginny, host })).status, 403, 'a DM between two is theirs only');
    const group = mine.filter((m) => m.type === 'private' && (m.display_recipient as Json[]).length === 3).map((m) => String(m.content));
    assert.equal(group.length, 3);
    assert.ok((await get(ginny)).some((m) => String(m.content).includes('Hogsmeade')));
    assert.ok(!(await get(ginny)).some((m) => String(m.content).includes('hey harry')));
  } finally {
    await t.close();
  }
});
