import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { HOST, testApp, people, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { postMultipart, type Part } from '../helpers/multipart.js';
import { transact } from '../../src/actions/transaction.js';
import { avatarStorageKeys, doStoreAvatar } from '../../src/actions/avatar.js';
import { users } from '../../src/store/repos/users.js';

/**
 * Uploaded avatars (Zulip's set_avatar_backend, delete_avatar_backend, do_change_avatar_fields):
 * through HTTP, with real images made here; the importer's doStoreAvatar directly.
 */
let t: TestApp;
let u: Record<'alice' | 'bob', TestUser>;
let r: Record<keyof typeof ROLES, TestUser>;
let png: Buffer;
let jpeg: Buffer;
const URL = '/api/v1/users/me/avatar';
const UPLOADED = /^\/user_avatars\/(\d+)\/([0-9a-f]{40})\.png\?version=(\d+)$/;

before(async () => {
  t = await testApp();
  u = await t.createUsers(people('alice', 'bob'));
  r = await t.createUsers(ROLES);
  png = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#08f' } }).png().toBuffer();
  jpeg = await sharp({ create: { width: 60, height: 90, channels: 3, background: '#f80' } }).jpeg().toBuffer();
});
after(() => t.close());

const file = (content: Buffer, filename = 'me.png', contentType = 'image/png'): Part => ({ field: 'file', filename, contentType, content });
const upload = (as: TestUser | null, parts: Part[]) => postMultipart(t, URL, as, parts);

/** GET without credentials, as an image loader fetches an avatar. */
async function fetchAvatar(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const res = await t.app.http.inject({ method: 'GET', url, headers: { host: HOST } });
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
}

async function me(as: TestUser): Promise<Record<string, any>> {
  return (await t.api('GET', '/api/v1/users/me', { as })).body;
}

test('an upload answers the relative URL of the 100px avatar; both sizes are served publicly, PNG, cacheable', async () => {
  const before_ = await me(u.alice);
  const res = await upload(u.alice, [file(png)]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const m = UPLOADED.exec(res.body.avatar_url);
  assert.ok(m, res.body.avatar_url);
  assert.equal(Number(m[1]), t.realm.id);
  assert.equal(Number(m[3]), before_.avatar_version + 1);
  for (const [url, size] of [[res.body.avatar_url, 100], [res.body.avatar_url.replace('.png?', '-medium.png?'), 500]] as const) {
    const got = await fetchAvatar(url);
    assert.equal(got.status, 200, url);
    assert.equal(got.headers['content-type'], 'image/png');
    assert.match(String(got.headers['cache-control']), /^public, max-age=\d+/);
    const meta = await sharp(got.body).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', size, size]);
  }
  // The original is kept for exports, but not served; nor is anything else under the prefix.
  assert.equal((await fetchAvatar(`/user_avatars/${m[1]}/${m[2]}.original`)).status, 404);
  assert.equal((await fetchAvatar(`/user_avatars/${m[1]}/${'0'.repeat(40)}.png`)).status, 404);
});

test('every user object, the register state and messages carry the uploaded URL, client_gravatar or not', async () => {
  const url = (await me(u.alice)).avatar_url as string;
  assert.match(url, UPLOADED);
  const version = Number(UPLOADED.exec(url)![3]);
  for (const client_gravatar of [false, true]) {
    const one = await t.api('GET', `/api/v1/users/${u.alice.id}`, { as: u.bob, params: { client_gravatar } });
    assert.equal(one.body.user.avatar_url, url);
    assert.equal(one.body.user.avatar_version, version);
    const all = await t.api('GET', '/api/v1/users', { as: u.bob, params: { client_gravatar } });
    assert.equal(all.body.members.find((x: any) => x.user_id === u.alice.id).avatar_url, url);
    // Bob's is still a gravatar: null for a client that computes them.
    const bob = all.body.members.find((x: any) => x.user_id === u.bob.id).avatar_url;
    if (client_gravatar) assert.equal(bob, null);
    else assert.match(bob, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
  }
  const reg = await t.api('POST', '/api/v1/register', { as: u.alice, params: { fetch_event_types: ['realm', 'realm_user'], client_gravatar: true } });
  assert.equal(reg.body.avatar_source, 'U');
  assert.equal(reg.body.avatar_url, url);
  assert.equal(reg.body.avatar_url_medium, url.replace('.png?', '-medium.png?'));
  assert.equal(reg.body.max_avatar_file_size_mib, 5);
  assert.equal(reg.body.realm_users.find((x: any) => x.user_id === u.alice.id).avatar_url, url);
  const sent = await t.api('POST', '/api/v1/messages', { as: u.alice, params: { type: 'private', to: [u.bob.id], content: 'look' } });
  const got = await t.api('GET', `/api/v1/messages/${sent.body.id}`, { as: u.bob, params: { client_gravatar: true } });
  assert.equal(got.body.message.avatar_url, url);
});

test('a new upload tells everyone: realm_user update with both URLs, source and version; the old files go', async () => {
  const old = (await me(u.alice)).avatar_url as string;
  const sent = await t.api('POST', '/api/v1/messages', { as: u.alice, params: { type: 'private', to: [u.bob.id], content: 'before' } });
  const shown = async () => (await t.api('GET', `/api/v1/messages/${sent.body.id}`, { as: u.bob, params: { client_gravatar: true } })).body.message.avatar_url;
  assert.equal(await shown(), old);
  const reg = await t.api('POST', '/api/v1/register', { as: u.bob, params: { event_types: ['realm_user'], client_gravatar: true } });
  const res = await upload(u.alice, [file(jpeg, 'photo.jpg', 'image/jpeg')]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const version = Number(UPLOADED.exec(res.body.avatar_url)![3]);
  assert.equal(version, Number(UPLOADED.exec(old)![3]) + 1);
  assert.notEqual(res.body.avatar_url.split('?')[0], old.split('?')[0], 'a new key at each upload');
  const polled = await t.api('GET', '/api/v1/events', { as: u.bob, params: { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true } });
  const events = polled.body.events.filter((e: any) => e.type === 'realm_user');
  assert.deepEqual(events, [{
    type: 'realm_user', op: 'update', id: events[0]?.id,
    person: {
      user_id: u.alice.id, avatar_source: 'U', avatar_url: res.body.avatar_url,
      avatar_url_medium: res.body.avatar_url.replace('.png?', '-medium.png?'), avatar_version: version,
    },
  }]);
  assert.equal((await fetchAvatar(old)).status, 404);
  assert.equal((await fetchAvatar(old.replace('.png?', '-medium.png?'))).status, 404);
  assert.equal((await fetchAvatar(res.body.avatar_url)).status, 200);
  // A message's wire form, cached before, follows.
  assert.equal(await shown(), res.body.avatar_url);
});

test('DELETE goes back to Gravatar: version bumped, files removed', async () => {
  const before_ = await me(u.alice);
  const res = await t.api('DELETE', URL, { as: u.alice });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.avatar_url, new RegExp(`^https://secure\\.gravatar\\.com/avatar/[0-9a-f]{32}\\?d=identicon&version=${before_.avatar_version + 1}$`));
  const after_ = await me(u.alice);
  assert.equal(after_.avatar_url, res.body.avatar_url);
  assert.equal(after_.avatar_version, before_.avatar_version + 1);
  assert.equal((await fetchAvatar(before_.avatar_url)).status, 404);
  const row = await users.findById(t.app.ctx.store.db, u.alice.id);
  assert.deepEqual([row?.avatar_source, row?.avatar_key], ['G', null]);
});

test("refusals in Zulip's order and words: file count, size, type, undecodable bytes, authentication", async () => {
  const one = 'You must upload exactly one avatar.';
  const twice = await upload(u.bob, [file(png), file(png, 'again.png')]);
  assert.deepEqual([twice.status, twice.body.msg], [400, one]);
  const none = await upload(u.bob, [{ field: 'note', content: 'no file here' }]);
  assert.deepEqual([none.status, none.body.msg], [400, one]);
  const big = Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]);
  const tooLarge = await upload(u.bob, [file(big)]);
  assert.deepEqual([tooLarge.status, tooLarge.body.msg], [400, 'Uploaded file is larger than the allowed limit of 5 MiB']);
  const text = await upload(u.bob, [file(Buffer.from('hello'), 'notes.txt', 'text/plain')]);
  assert.deepEqual([text.status, text.body.msg], [400, 'Invalid image format']);
  const junk = await upload(u.bob, [file(Buffer.from('not really a png'), 'fake.png', 'image/png')]);
  assert.deepEqual([junk.status, junk.body.msg], [400, 'Could not decode image; did you upload an image file?']);
  // No declared type: judged by the file's name.
  const named = await upload(u.bob, [file(png, 'plain.png', 'application/octet-stream')]);
  assert.equal(named.status, 200, JSON.stringify(named.body));
  assert.equal((await upload(null, [file(png)])).status, 401);
  assert.equal((await t.api('DELETE', URL, { as: null })).status, 401);
  // Nothing refused changed Bob's avatar beyond the one accepted upload.
  assert.equal((await me(u.bob)).avatar_version, 2);
});

test('avatar_changes_disabled: members are refused both ways, administrators are not', async () => {
  const set = async (v: boolean) => assert.equal((await t.api('PATCH', '/api/v1/realm', { as: t.owner, params: { avatar_changes_disabled: v } })).status, 200);
  await set(true);
  try {
    const disabled = 'Avatar changes are disabled in this organization.';
    const member = await upload(r.member, [file(png)]);
    assert.deepEqual([member.status, member.body.msg], [400, disabled]);
    const del = await t.api('DELETE', URL, { as: r.member });
    assert.deepEqual([del.status, del.body.msg], [400, disabled]);
    const admin = await upload(r.admin, [file(png)]);
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    assert.equal((await t.api('DELETE', URL, { as: r.admin })).status, 200);
  } finally {
    await set(false);
  }
  assert.equal((await upload(r.member, [file(png)])).status, 200);
});

test("doStoreAvatar (the importer's entry point) takes a stream; avatarStorageKeys finds the original for the exporter", async () => {
  const row = (await users.findById(t.app.ctx.store.db, r.other.id))!;
  assert.equal(avatarStorageKeys(row), undefined);
  const stored = await transact(t.app.ctx, (tx) => doStoreAvatar(tx, t.app.ctx.storage, row, Readable.from([jpeg]), { fileName: 'face.jpg', notify: false }));
  assert.equal(stored.avatar_source, 'U');
  assert.equal(stored.avatar_version, row.avatar_version + 1);
  const keys = avatarStorageKeys((await users.findById(t.app.ctx.store.db, r.other.id))!);
  assert.ok(keys);
  const original = await t.app.ctx.storage.get(keys.original);
  assert.ok(original);
  const chunks: Buffer[] = [];
  for await (const c of original) chunks.push(c as Buffer);
  assert.deepEqual(Buffer.concat(chunks), jpeg);
  const url = (await t.api('GET', `/api/v1/users/${r.other.id}`, { as: u.bob })).body.user.avatar_url as string;
  assert.equal(url, `/user_avatars/${keys.small}?version=${stored.avatar_version}`);
  assert.equal((await fetchAvatar(`/user_avatars/${keys.medium}`)).status, 200);
});
