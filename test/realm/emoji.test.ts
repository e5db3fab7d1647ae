import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { postMultipart, fetchUpload, type Part } from '../helpers/multipart.js';
import { setRealmSettings } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { Policy } from '../../src/access/realm-policy.js';

/** Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}, and their use in messages, reactions and status. */
let t: TestApp;
let u: Record<'admin' | 'member' | 'other' | 'guest', TestUser>;
let png: Buffer;
let gif: Buffer;

const square = (color: string, size = 100) => sharp({ create: { width: size, height: size, channels: 4, background: color } }).png().toBuffer();

before(async () => {
  t = await testApp();
  u = await t.createUsers(ROLES);
  png = await square('#3366ff');
  gif = await sharp([await square('#ff0000', 80), await square('#00ff00', 80)], { join: { animated: true } }).gif().toBuffer();
});
after(() => t.close());

const file = (content: Buffer, filename = 'emoji.png'): Part => ({ field: 'file', filename, content });
const add = (as: TestUser, name: string, parts: Part[] = [file(png)]) => postMultipart(t, `/api/v1/realm/emoji/${encodeURIComponent(name)}`, as, parts);
const list = async (as: TestUser = u.member) => (await t.api('GET', '/api/v1/realm/emoji', { as })).body.emoji as Record<string, any>;
const byName = async (name: string) => Object.values(await list()).find((e: any) => e.name === name && !e.deactivated);
const msg = (r: { body: any }) => r.body.msg;

test('upload: the emoji appears in GET /realm/emoji with its 64x64 image served publicly', async () => {
  const r = await add(u.member, 'party_parrot');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const e = await byName('party_parrot');
  assert.deepEqual(Object.keys(e).sort(), ['author_id', 'deactivated', 'id', 'name', 'source_url', 'still_url']);
  assert.equal(e.author_id, u.member.id);
  assert.equal(e.still_url, null);
  assert.equal(e.source_url, `/user_avatars/${t.realm.id}/emoji/images/${e.id}.png`);
  const img = await t.app.http.inject({ method: 'GET', url: e.source_url, headers: { host: 'parley.test' } });
  assert.equal(img.statusCode, 200);
  assert.equal(img.headers['content-type'], 'image/png');
  const meta = await sharp(img.rawPayload).metadata();
  assert.deepEqual([meta.width, meta.height], [64, 64]);
  assert.equal((await fetchUpload(t, `/user_avatars/${t.realm.id}/emoji/images/999.png`, null)).status, 404);
});

test('an animated GIF keeps its frames and gets a still PNG (still_url)', async () => {
  assert.equal((await add(u.member, 'blink', [file(gif, 'blink.gif')])).status, 200);
  const e = await byName('blink');
  assert.ok(e.source_url.endsWith('.gif'));
  assert.equal(e.still_url, `/user_avatars/${t.realm.id}/emoji/images/still/${e.id}.png`);
  const anim = await t.app.http.inject({ method: 'GET', url: e.source_url, headers: { host: 'parley.test' } });
  assert.equal((await sharp(anim.rawPayload, { animated: true }).metadata()).pages, 2);
  const still = await t.app.http.inject({ method: 'GET', url: e.still_url, headers: { host: 'parley.test' } });
  assert.equal(still.headers['content-type'], 'image/png');
  assert.equal((await sharp(still.rawPayload).metadata()).pages ?? 1, 1);
});

test("names: spaces become underscores; Zulip's name errors", async () => {
  const spaced = await add(u.member, ' big deal ');
  assert.equal(spaced.status, 200, JSON.stringify(spaced.body));
  assert.ok(await byName('big_deal'));
  assert.equal(msg(await add(u.member, 'Bad!')), 'Invalid characters in emoji name');
  assert.equal(msg(await add(u.member, 'trailing_')), 'Invalid characters in emoji name');
  assert.equal(msg(await add(u.member, ' ')), 'Emoji name is missing');
  assert.deepEqual((await add(u.member, 'big_deal')).body, { result: 'error', msg: 'A custom emoji with this name already exists.', code: 'BAD_REQUEST' });
});

test('files: exactly one, at most 5 MiB, an image', async () => {
  assert.equal(msg(await add(u.member, 'none', [])), 'You must upload exactly one file.');
  assert.equal(msg(await t.api('POST', '/api/v1/realm/emoji/none', { as: u.member })), 'You must upload exactly one file.');
  assert.equal(msg(await add(u.member, 'two', [file(png), file(png, 'b.png')])), 'You must upload exactly one file.');
  assert.equal(msg(await add(u.member, 'huge', [file(Buffer.alloc(5 * 1024 * 1024 + 1))])), 'Uploaded file is larger than the allowed limit of 5 MiB');
  assert.equal(msg(await add(u.member, 'text', [file(Buffer.from('not an image'), 'a.png')])), 'Could not decode image; did you upload an image file?');
  assert.equal(await byName('text'), undefined);
});

test('permissions: add_custom_emoji_policy, guests never, built-in names for administrators only', async () => {
  assert.equal(msg(await add(u.guest, 'guesty')), 'Not allowed for guest users');
  await setRealmSettings(t, { add_custom_emoji_policy: Policy.ADMINS });
  assert.equal(msg(await add(u.member, 'adminonly')), 'Insufficient permission');
  assert.equal((await add(u.admin, 'adminonly')).status, 200);
  await setRealmSettings(t, { add_custom_emoji_policy: Policy.MEMBERS });
  assert.equal(msg(await add(u.member, 'smile')), 'Only administrators can override built-in emoji.');
  assert.equal((await add(u.admin, 'smile')).status, 200);
  assert.equal((await postMultipart(t, '/api/v1/realm/emoji/anon', null, [file(png)])).status, 401);
  assert.equal((await t.api('GET', '/api/v1/realm/emoji', { as: null })).status, 401);
});

test('delete: deactivates; its author or an administrator only; then the name is free again', async () => {
  assert.equal((await add(u.member, 'doomed')).status, 200);
  const id = (await byName('doomed')).id;
  assert.equal(msg(await t.api('DELETE', '/api/v1/realm/emoji/doomed', { as: u.other })), 'Must be an organization administrator or emoji author');
  assert.equal((await t.api('DELETE', '/api/v1/realm/emoji/doomed', { as: u.member })).status, 200);
  assert.equal((await list())[id].deactivated, true);
  const gone = await t.api('DELETE', '/api/v1/realm/emoji/doomed', { as: u.admin });
  assert.deepEqual(gone.body, { result: 'error', msg: "Emoji 'doomed' does not exist", code: 'BAD_REQUEST' });
  // HTTP 404 from feature level 190 (Zulip's ResourceNotFoundError), 400 before.
  assert.equal(gone.status, t.app.ctx.config.featureLevel >= 190 ? 404 : 400);
  assert.equal((await add(u.other, 'doomed')).status, 200);
  assert.equal((await t.api('DELETE', '/api/v1/realm/emoji/doomed', { as: u.admin })).status, 200);
  assert.equal((await t.api('DELETE', '/api/v1/realm/emoji/doomed', { as: null })).status, 401);
});

test('messages render :name: as the image, as Zulip', async () => {
  const e = await byName('party_parrot');
  const id = await sendMessage(t, u.member, { type: 'private', to: [u.other.id], content: 'yay :party_parrot: and :smile:' });
  const m = (await t.api('GET', `/api/v1/messages/${id}`, { as: u.member })).body.message;
  assert.ok(m.content.includes(`<img alt=":party_parrot:" class="emoji" src="${e.source_url}" title="party parrot">`), m.content);
  // The organization's "smile" overrides the built-in one.
  assert.ok(m.content.includes('alt=":smile:"'), m.content);
});

test('reactions and status take custom emoji (realm_emoji, by id)', async () => {
  const e = await byName('party_parrot');
  const id = await sendMessage(t, u.member, { type: 'private', to: [u.other.id], content: 'react' });
  const r = await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: u.other, params: { emoji_name: 'party_parrot' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const m = (await t.api('GET', `/api/v1/messages/${id}`, { as: u.member })).body.message;
  assert.deepEqual(m.reactions.map((x: any) => [x.emoji_name, x.emoji_code, x.reaction_type]), [['party_parrot', e.id, 'realm_emoji']]);
  const explicit = await t.api('POST', `/api/v1/messages/${id}/reactions`, { as: u.member, params: { emoji_name: 'party_parrot', emoji_code: e.id, reaction_type: 'realm_emoji' } });
  assert.equal(explicit.status, 200, JSON.stringify(explicit.body));
  const status = await t.api('POST', '/api/v1/users/me/status', { as: u.other, params: { emoji_name: 'party_parrot' } });
  assert.equal(status.status, 200, JSON.stringify(status.body));
  const reg = await t.api('POST', '/api/v1/register', { as: u.member, params: { fetch_event_types: ['user_status', 'realm_emoji'] } });
  assert.deepEqual(reg.body.user_status[u.other.id], { emoji_name: 'party_parrot', emoji_code: e.id, reaction_type: 'realm_emoji' });
  assert.deepEqual(reg.body.realm_emoji, await list());
});

test("zulip-js's emojis.retrieve works as it sends it", async () => {
  const require = createRequire(import.meta.url);
  const zulipInit = require('zulip-js');
  const base = await t.listen();
  const client = await zulipInit({ realm: base, username: u.member.email, apiKey: u.member.apiKey });
  const r = await client.emojis.retrieve();
  assert.equal(r.result, 'success', JSON.stringify(r));
  assert.ok(Object.values(r.emoji).some((e: any) => e.name === 'party_parrot'));
});
