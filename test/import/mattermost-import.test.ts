/**
 * `parley import mattermost` end to end: a bulk export (here packed as .tar.gz) becomes an
 * organization for one team, with its channels, posts and replies, direct conversations,
 * reactions and attachments served through the API to whom they belong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import tar from 'tar-stream';
import { testApp, HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { runImport } from '../../src/import/run.js';
import { users } from '../../src/store/repos/users.js';
import { realms } from '../../src/store/repos/realms.js';
import { scratchDir } from '../helpers/scratch.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mattermost/small');
const ORG_HOST = `mm.${HOST}`;

/** A folder as a .tar.gz whose entries sit under one top folder. */
export async function tarGzFolder(dir: string, top = 'mattermost-export'): Promise<string> {
  const pack = tar.pack();
  const out = path.join(scratchDir('parley-tgz-'), 'export.tar.gz');
  const done = pipeline(pack, zlib.createGzip(), fs.createWriteStream(out));
  for (const d of fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]) {
    if (!d.isFile()) continue;
    const full = path.join(d.parentPath, d.name);
    pack.entry({ name: `${top}/${path.relative(dir, full)}` }, fs.readFileSync(full));
  }
  pack.finalize();
  await done;
  return out;
}

async function person(t: TestApp, email: string): Promise<TestUser> {
  const realm = (await realms.findByStringId(t.app.ctx.store.db, 'mm'))!;
  return asTestUser((await users.findByDeliveryEmail(t.app.ctx.store.db, realm.id, email))!);
}

test('a Mattermost export becomes an organization: team members, channels, posts, DMs, reactions, files', async () => {
  const t = await testApp();
  try {
    const result = await runImport(t.app.ctx, 'mattermost', await tarGzFolder(DIR), { stringId: 'mm', name: 'Acme on Parley' });
    assert.ok(result.messages >= 6);
    const alice = await person(t, 'alice@example.com');
    const bob = await person(t, 'bob@example.com');
    const api = (method: string, url: string, as: TestUser, params?: Record<string, unknown>) => t.api(method, url, { as, host: ORG_HOST, ...(params ? { params } : {}) });
    const server = (await t.api('GET', '/api/v1/server_settings', { host: ORG_HOST })).body;
    assert.equal(server.realm_name, 'Acme on Parley');

    const members = (await api('GET', '/api/v1/users', alice)).body.members as Array<Record<string, any>>;
    const me = (u: TestUser) => members.find((m) => m.user_id === u.id)!;
    assert.ok(me(alice).role <= 200, 'a team admin administers');
    assert.equal(me(bob).role, 200, 'a system admin is an administrator');
    assert.ok(members.some((m) => m.role === 600), 'a guest');
    assert.ok(members.some((m) => m.is_active === false), 'a deactivated account');

    const streams = (await api('GET', '/api/v1/streams', alice, { include_all_active: 'true' })).body.streams as Array<Record<string, any>>;
    const secret = streams.find((s) => s.name === 'Secret Plans' || s.name === 'secret')!;
    assert.equal(secret.invite_only, true);
    assert.equal(secret.description, 'Plans, kept secret');

    const all = (await api('GET', '/api/v1/messages', alice, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    const welcome = all.find((m) => String(m.content).includes('Welcome'))!;
    assert.match(welcome.content, new RegExp(`data-user-id="${bob.id}"`), '@bob.b became a mention');
    assert.ok((welcome.reactions as Array<Record<string, any>>).some((r) => r.emoji_name === 'smile'));
    // Replies are messages of their own, after the post.
    assert.ok(all.filter((m) => m.type === 'stream' && m.subject === welcome.subject).length >= 3);
    // Starred by whom flagged it.
    const bobsView = (await api('GET', '/api/v1/messages', bob, { anchor: welcome.id, num_before: 0, num_after: 0, narrow: '[]' })).body.messages[0];
    assert.ok(bobsView.flags.includes('starred'));
    // DMs and a group DM.
    assert.ok(all.some((m) => m.type === 'private' && m.display_recipient.length === 2));
    assert.ok(all.some((m) => m.type === 'private' && m.display_recipient.length === 3));
    // Attachments: links to this organization's uploads, served to members of the private channel only.
    const withFiles = all.find((m) => m.display_recipient === secret.name && String(m.content).includes('/user_uploads/'))!;
    const link = /href="(\/user_uploads\/[^"]+)"/.exec(withFiles.content)![1]!;
    assert.ok(link.startsWith(`/user_uploads/${alice.row.realm_id}/`));
    assert.equal((await api('GET', link, bob)).status, 200);
    const gus = members.find((m) => m.role === 600)!;
    const gusRow = asTestUser((await users.findById(t.app.ctx.store.db, gus.user_id))!);
    assert.equal((await api('GET', link, gusRow)).status, 403);
    // The other team's post is not here.
    assert.ok(!all.some((m) => String(m.content).includes("another team's post")));
  } finally {
    await t.close();
  }
});
