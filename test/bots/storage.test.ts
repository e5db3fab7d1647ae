import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';

/**
 * Bot storage (Zulip's zerver/views/storage.py): a key-value store of strings per user,
 * bounded in characters (keys and values together). Each user sees only their own.
 */
let t: TestApp;
let bot: TestUser;
let other: TestUser;
const LIMIT = 40;

before(async () => {
  t = await testApp({ botStorageLimit: LIMIT });
  const alice = await t.createUser({ name: 'Alice Smith' });
  bot = await t.createBot(alice, { fullName: 'Store Bot', shortName: 'store' });
  other = await t.createBot(alice, { fullName: 'Other Bot', shortName: 'other' });
});
after(() => t.close());

const err = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const get = (as: TestUser, params?: Record<string, unknown>) => t.api('GET', '/api/v1/bot_storage', { as, params });
const put = (as: TestUser, storage: unknown) => t.api('PUT', '/api/v1/bot_storage', { as, params: { storage } });
const del = (as: TestUser, params?: Record<string, unknown>) => t.api('DELETE', '/api/v1/bot_storage', { as, params });

test('put, get by keys and whole, replace, remove', async () => {
  assert.deepEqual((await get(bot)).body, { result: 'success', msg: '', storage: {} });
  assert.deepEqual((await put(bot, { a: '1', b: 'two', 'ünï': 'cödé' })).body, { result: 'success', msg: '' });
  assert.deepEqual((await get(bot)).body.storage, { a: '1', b: 'two', 'ünï': 'cödé' });
  assert.deepEqual((await get(bot, { keys: ['b'] })).body.storage, { b: 'two' });
  assert.deepEqual((await put(bot, { b: 'three' })).body.result, 'success');
  assert.deepEqual((await get(bot, { keys: ['a', 'b'] })).body.storage, { a: '1', b: 'three' });
  // Another user's storage is their own.
  assert.deepEqual((await get(other)).body.storage, {});
  assert.deepEqual((await get(other, { keys: ['a'] })).body, err('Key does not exist.'));
  assert.deepEqual((await del(other, { keys: ['a'] })).body, err('Key does not exist.'));
  assert.equal((await del(bot, { keys: ['a'] })).status, 200);
  assert.deepEqual((await get(bot)).body.storage, { b: 'three', 'ünï': 'cödé' });
  // No keys (or an empty list): everything.
  assert.equal((await del(bot, { keys: [] })).status, 200);
  assert.deepEqual((await get(bot)).body.storage, {});
  await put(bot, { x: 'y' });
  assert.equal((await del(bot)).status, 200);
  assert.deepEqual((await get(bot)).body.storage, {});
});

test('the size limit counts characters of keys and values, after replacement', async () => {
  // 40 characters exactly fit ('ü' is one character, two UTF-8 bytes).
  assert.equal((await put(bot, { k: 'ü'.repeat(LIMIT - 1) })).status, 200);
  assert.deepEqual((await put(bot, { k2: 'v' })).body, err(`Request exceeds storage limit by 3 characters. The limit is ${LIMIT} characters.`));
  // Replacing a value counts the old one out.
  assert.equal((await put(bot, { k: 'short' })).status, 200);
  assert.deepEqual((await put(bot, { big: 'x'.repeat(LIMIT) })).body, err(`Request exceeds storage limit by ${6 + 3 + LIMIT - LIMIT} characters. The limit is ${LIMIT} characters.`));
  // A refused request writes nothing, even the entries that would have fit.
  assert.equal((await put(bot, { ok: '1', big: 'x'.repeat(LIMIT) })).status, 400);
  assert.deepEqual((await get(bot)).body.storage, { k: 'short' });
  await del(bot);
});

test('parameter and key errors', async () => {
  await put(bot, { a: '1' });
  assert.deepEqual((await put(bot, ['a'])).body, err('storage is not a dict'));
  assert.deepEqual((await put(bot, 'text')).body, err('Argument "storage" is not valid JSON.'));
  assert.deepEqual((await put(bot, { a: 1 })).body, err('storage["a"] is not a string'));
  assert.deepEqual((await put(bot, { a: 'x\u0000' })).body, err('Storage must not contain null bytes'));
  assert.deepEqual((await t.api('PUT', '/api/v1/bot_storage', { as: bot, params: {} })).body,
    { result: 'error', msg: "Missing 'storage' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'storage' });
  assert.deepEqual((await get(bot, { keys: 'a' })).body, err('Argument "keys" is not valid JSON.'));
  assert.deepEqual((await get(bot, { keys: [1] })).body, err('keys[0] is not a string'));
  assert.deepEqual((await get(bot, { keys: ['a', 'missing'] })).body, err('Key does not exist.'));
  assert.deepEqual((await get(bot, { keys: ['\u0000'] })).body, err('Key does not exist.'));
  // A missing key among several removes none of them.
  assert.deepEqual((await del(bot, { keys: ['a', 'missing'] })).body, err('Key does not exist.'));
  assert.deepEqual((await get(bot)).body.storage, { a: '1' });
  await del(bot);
});

test('a human may keep storage too, as in Zulip', async () => {
  assert.equal((await put(t.owner, { note: 'mine' })).status, 200);
  assert.deepEqual((await get(t.owner)).body.storage, { note: 'mine' });
});
