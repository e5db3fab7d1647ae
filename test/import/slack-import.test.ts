/**
 * `parley import slack` end to end: a zipped Slack workspace export becomes an organization
 * whose people, channels, conversations and files the API serves, each to whom it belongs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { testApp, HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { fakeSlack, SLACK_FILES, SLACK_TOKEN, zipFolder } from '../helpers/fake-slack.js';
import { runImport } from '../../src/import/run.js';
import { users } from '../../src/store/repos/users.js';
import { realms } from '../../src/store/repos/realms.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/slack/workspace');
const ORG_HOST = `slacky.${HOST}`;

async function person(t: TestApp, email: string): Promise<TestUser> {
  const realm = (await realms.findByStringId(t.app.ctx.store.db, 'slacky'))!;
  return asTestUser((await users.findByDeliveryEmail(t.app.ctx.store.db, realm.id, email))!);
}

test('a Slack export (zip) becomes an organization: people, channels, threads, DMs, reactions, files', async () => {
  const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).gif().toBuffer();
  const slack = await fakeSlack({ ...SLACK_FILES, '/emoji.slack-edge.com/T1/partyparrot/abc.gif': gif });
  const t = await testApp();
  try {
    const result = await runImport(t.app.ctx, 'slack', await zipFolder(DIR), { stringId: 'slacky', token: SLACK_TOKEN, fetch: slack.fetch });
    assert.ok(result.messages > 5);
    const alice = await person(t, 'alice@example.com');
    const bob = await person(t, 'bob@example.com');
    const carol = await person(t, 'carol@example.com');
    const api = (method: string, url: string, as: TestUser, params?: Record<string, unknown>) => t.api(method, url, { as, host: ORG_HOST, ...(params ? { params } : {}) });

    const members = (await api('GET', '/api/v1/users', alice)).body.members as Array<Record<string, any>>;
    const byName = new Map(members.map((m) => [m.full_name, m]));
    assert.equal(members.find((m) => m.user_id === alice.id)!.role, 100, 'the primary owner');
    assert.equal(members.find((m) => m.user_id === bob.id)!.role, 200);
    assert.equal(members.find((m) => m.user_id === carol.id)!.role, 600, 'a restricted account is a guest');
    assert.equal(members.find((m) => m.delivery_email === 'dave@example.com' || m.email === 'dave@example.com')?.is_active ?? byName.get('dave')?.is_active, false);
    assert.ok(members.some((m) => m.is_bot), 'the bot user');

    const streams = (await api('GET', '/api/v1/streams', alice, { include_all_active: 'true' })).body.streams as Array<Record<string, any>>;
    const names = streams.map((s) => s.name).sort();
    assert.ok(names.includes('general') && names.includes('random') && names.includes('secret'));
    assert.equal(streams.find((s) => s.name === 'secret')!.invite_only, true);

    const all = (await api('GET', '/api/v1/messages', alice, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    const hello = all.find((m) => m.raw_content === undefined && String(m.content).includes('the site'))!;
    // Slack's markup, converted then rendered: a mention, a channel link, a link, bold.
    assert.match(hello.content, new RegExp(`data-user-id="${bob.id}"`));
    assert.match(hello.content, /<a href="https:\/\/example.com\/a"[^>]*>the site<\/a>/);
    assert.match(hello.content, /<strong>bold<\/strong>/);
    assert.match(hello.content, /class="stream"/);
    assert.ok(hello.last_edit_timestamp, 'edited');
    const reactions = (hello.reactions as Array<Record<string, any>>).map((r) => r.emoji_name);
    assert.ok(reactions.includes('+1') || reactions.includes('thumbs_up'));
    assert.ok(reactions.includes('partyparrot'), 'a custom emoji reaction');
    // Timestamps are Slack's.
    assert.equal(all[0]!.timestamp, 1577880000);
    // Threads go to topics of their own.
    assert.ok(new Set(all.filter((m) => m.type === 'stream').map((m) => m.subject)).size >= 2);
    // Files: in the archive, or fetched with the token; links rewritten to this organization's uploads.
    const withFile = all.filter((m) => String(m.content).includes('/user_uploads/'));
    assert.ok(withFile.length >= 2);
    for (const m of withFile) {
      const link = /(?:href|src)="(\/user_uploads\/[^"]+)"/.exec(m.content)![1]!;
      assert.ok(link.startsWith(`/user_uploads/${alice.row.realm_id}/`));
    }
    assert.ok(slack.requested.some((r) => r.includes('files-pri')));
    const notes = withFile.find((m) => String(m.content).includes('notes.txt'));
    if (notes) {
      const link = /href="(\/user_uploads\/[^"]+)"/.exec(notes.content)![1]!;
      const file = await api('GET', link, alice);
      assert.equal(file.status, 200);
    }

    // Privacy: the private channel and DMs only to their members.
    const bobSees = (await api('GET', '/api/v1/messages', bob, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    const carolSees = (await api('GET', '/api/v1/messages', carol, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    const secretIds = all.filter((m) => m.display_recipient === 'secret').map((m) => m.id);
    assert.ok(secretIds.length > 0);
    assert.ok(secretIds.every((id) => bobSees.some((m) => m.id === id)));
    assert.ok(secretIds.every((id) => !carolSees.some((m) => m.id === id)));
    assert.ok(all.some((m) => m.type === 'private'), 'DMs and group DMs');
  } finally {
    await t.close();
    await slack.close();
  }
});
