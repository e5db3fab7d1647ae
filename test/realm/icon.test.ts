import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { HOST, testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { postMultipart, type Part } from '../helpers/multipart.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { validateEvent } from '../../src/events/schemas.js';

/**
 * The organization icon (Zulip's upload_icon, delete_icon_backend, do_change_icon_source):
 * administrators upload one image, resized to a 100 px PNG and served publicly; removing it
 * goes back to the Gravatar identicon; every active user hears realm/update_dict `icon`.
 */
let t: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
let png: Buffer;
const URL_ = '/api/v1/realm/icon';
const UPLOADED = /^\/user_avatars\/(\d+)\/realm\/icon\.png\?version=(\d+)$/;
const GRAVATAR = /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&s=100$/;

before(async () => {
  t = await testApp();
  u = await t.createUsers(ROLES);
  png = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#08f' } }).png().toBuffer();
});
after(() => t.close());

const file = (content: Buffer, field = 'file', filename = 'icon.png'): Part => ({ field, filename, contentType: 'image/png', content });
const upload = (as: TestUser | null, parts: Part[], url = URL_) => postMultipart(t, url, as, parts);
const REGISTER = { fetch_event_types: ['realm'], event_types: ['realm'] };
const register = async (as: TestUser) => assertOk(await t.api('POST', '/api/v1/register', { as, params: REGISTER }));
const poll = async (as: TestUser, queueId: string) =>
  assertOk(await t.api('GET', '/api/v1/events', { as, params: { queue_id: queueId, last_event_id: -1, dont_block: true } })).events as Array<Record<string, any>>;
const serverSettings = async () => assertOk(await t.api('GET', '/api/v1/server_settings', { as: null }));

test('register and server_settings start with the identicon (source G); the size limit is 5 MiB', async () => {
  const reg = await register(u.member);
  assert.match(reg.realm_icon_url, GRAVATAR);
  assert.equal(reg.realm_icon_source, 'G');
  assert.equal(reg.max_icon_file_size_mib, 5);
  assert.equal((await serverSettings()).realm_icon, reg.realm_icon_url);
});

test('an administrator uploads an icon: a relative URL to a 100 px PNG served without credentials; delete goes back to the identicon', async () => {
  const res = await upload(u.admin, [file(png)]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const m = UPLOADED.exec(res.body.icon_url);
  assert.ok(m, res.body.icon_url);
  assert.equal(Number(m[1]), t.realm.id);
  const got = await t.app.http.inject({ method: 'GET', url: res.body.icon_url, headers: { host: HOST } });
  assert.equal(got.statusCode, 200);
  assert.equal(got.headers['content-type'], 'image/png');
  const meta = await sharp(got.rawPayload).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['png', 100, 100]);
  const reg = await register(u.member);
  assert.equal(reg.realm_icon_url, res.body.icon_url);
  assert.equal(reg.realm_icon_source, 'U');
  assert.equal((await serverSettings()).realm_icon, res.body.icon_url);

  // Each upload is a new URL (the version), so caches never show the old picture.
  const again = await upload(t.owner, [file(png)]);
  assert.equal(again.status, 200);
  assert.notEqual(again.body.icon_url, res.body.icon_url);

  const removed = assertOk(await t.api('DELETE', URL_, { as: u.admin }));
  assert.match(removed.icon_url, GRAVATAR);
  const after_ = await register(u.member);
  assert.equal(after_.realm_icon_url, removed.icon_url);
  assert.equal(after_.realm_icon_source, 'G');
  assert.equal((await serverSettings()).realm_icon, removed.icon_url);
  const missing = await t.app.http.inject({ method: 'GET', url: `/user_avatars/${t.realm.id + 1000}/realm/icon.png`, headers: { host: HOST } });
  assert.equal(missing.statusCode, 404);
});

test('errors in Zulip\'s words: no file, two files, too large, not an image', async () => {
  const none = await upload(u.admin, [{ field: 'x', content: 'y' }]);
  assert.equal(none.status, 400);
  assert.equal(none.body.msg, 'You must upload exactly one icon.');
  const two = await upload(u.admin, [file(png, 'a'), file(png, 'b', 'b.png')]);
  assert.equal(two.status, 400);
  assert.equal(two.body.msg, 'You must upload exactly one icon.');
  const big = await upload(u.admin, [file(Buffer.alloc(5 * 1024 * 1024 + 10, 1))]);
  assert.equal(big.status, 400);
  assert.equal(big.body.msg, 'Uploaded file is larger than the allowed limit of 5 MiB');
  const junk = await upload(u.admin, [file(Buffer.from('not an image'))]);
  assert.equal(junk.status, 400);
  assert.equal(junk.body.msg, 'Could not decode image; did you upload an image file?');
  assert.equal((await register(u.member)).realm_icon_source, 'G');
});

test('administrators only; authentication required', async () => {
  for (const who of [u.member, u.guest]) {
    const r = await upload(who, [file(png)]);
    assert.equal(r.status, 400);
    assert.equal(r.body.msg, 'Must be an organization administrator');
    assert.equal(r.body.code, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await t.api('DELETE', URL_, { as: who }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  const anon = await upload(null, [file(png)]);
  assert.equal(anon.status, 401);
  assertUnauthenticated(await t.api('DELETE', URL_, { as: null }));
});

test('guard: every active user hears realm/update_dict icon; register + events = a fresh register', async () => {
  const regs = new Map<TestUser, Record<string, any>>();
  for (const who of [u.member, u.guest, t.owner]) regs.set(who, await register(who));
  const up = await upload(u.admin, [file(png)]);
  assert.equal(up.status, 200);
  const removed = assertOk(await t.api('DELETE', URL_, { as: u.admin }));
  const up2 = await upload(u.admin, [file(png)]);
  for (const [who, reg] of regs) {
    const events = (await poll(who, reg.queue_id)).filter((e) => e.type !== 'heartbeat');
    assert.deepEqual(events.map((e) => [e.type, e.op, e.property, e.data]), [
      ['realm', 'update_dict', 'icon', { icon_url: up.body.icon_url, icon_source: 'U' }],
      ['realm', 'update_dict', 'icon', { icon_url: removed.icon_url, icon_source: 'G' }],
      ['realm', 'update_dict', 'icon', { icon_url: up2.body.icon_url, icon_source: 'U' }],
    ]);
    for (const e of events) {
      assert.deepEqual(validateEvent(e as any), []);
      applyEvent(reg, e as ClientEvent, who.id);
    }
    const fresh = await register(who);
    const { queue_id: _q, last_event_id: _l, ...rest } = reg;
    const { queue_id: _fq, last_event_id: _fl, ...freshRest } = fresh;
    assert.deepEqual(rest, freshRest);
  }
  assertOk(await t.api('DELETE', URL_, { as: u.admin }));
});
