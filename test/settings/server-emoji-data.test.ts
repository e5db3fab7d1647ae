import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, HOST, type TestApp } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';

/** Level 140: register's server_emoji_data_url, and the file it names, served without credentials. */
let t: TestApp;
let spec: TestApp;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
});
after(async () => { await t.close(); await spec.close(); });

const urlOf = async (app: TestApp) => assertOk(await app.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm'] } })).server_emoji_data_url as unknown;

test('register names an absolute URL on the realm from level 140 only', async () => {
  const url = await urlOf(t);
  assert.equal(typeof url, 'string');
  const parsed = new URL(url as string);
  assert.equal(parsed.hostname, HOST);
  assert.match(parsed.pathname, /^\/static\/generated\/emoji\/emoji_api\.[0-9a-f]{16}\.json$/);
  assert.equal(await urlOf(spec), undefined);
});

test('the file: code_to_names by emoji code, canonical name first; no credentials; cached for good; other names not found', async () => {
  const { pathname } = new URL((await urlOf(t)) as string);
  const r = await t.api('GET', pathname, { as: null });
  assert.equal(r.status, 200);
  assert.match(String(r.headers?.['content-type']), /^application\/json/);
  assert.equal(r.headers?.['cache-control'], 'public, max-age=31536000, immutable');
  assert.deepEqual(Object.keys(r.body), ['code_to_names']);
  const names = r.body.code_to_names as Record<string, string[]>;
  assert.ok(Object.keys(names).length > 1000);
  assert.deepEqual(names['1f600'], ['grinning']);
  assert.equal(names['1f642']?.[0], 'smile', 'Zulip\'s canonical name first');
  assert.ok(names['1f44d']?.includes('+1'));
  for (const [code, list] of Object.entries(names)) {
    assert.match(code, /^[0-9a-f]+(-[0-9a-f]+)*$/);
    assert.ok(Array.isArray(list) && list.length > 0 && list.every((n) => typeof n === 'string'));
  }
  // The same bytes each time, and from the server of any level.
  assert.deepEqual((await spec.api('GET', pathname, { as: null })).body, r.body);
  assert.equal((await t.api('GET', '/static/generated/emoji/emoji_api.0000000000000000.json', { as: null })).status, 404);
  assert.equal((await t.api('GET', '/static/generated/emoji/emoji_api.json', { as: null })).status, 404);
});
