import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';

/**
 * Zulip 7.0 (level 167): every success answer lists the parameters the request carried that
 * the endpoint does not take, in `ignored_parameters_unsupported`; at 122 the spec's answers
 * stay as they were (only PATCH /settings and PATCH /realm list them there).
 */
const apps: TestApp[] = [];
let latest: TestApp;
let spec: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  latest = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  apps.push(latest, spec);
});

test('a GET with an unknown query parameter names it; one without any has no list', async () => {
  const r = assertOk(await latest.api('GET', '/api/v1/users/me', { query: { frobnicate: 'yes' } }));
  assert.deepEqual(r.ignored_parameters_unsupported, ['frobnicate']);
  assert.equal(typeof r.user_id, 'number');
  const plain = assertOk(await latest.api('GET', '/api/v1/users/me'));
  assert.equal('ignored_parameters_unsupported' in plain, false);
});

test('POST /messages ignores realm_str (level 166) and says so, and still sends', async () => {
  const r = assertOk(await latest.api('POST', '/api/v1/messages', {
    params: { type: 'direct', to: JSON.stringify([latest.owner.id]), content: 'hello', realm_str: 'zulip', bogus: 1 },
  }));
  assert.equal(typeof r.id, 'number');
  assert.deepEqual([...r.ignored_parameters_unsupported].sort(), ['bogus', 'realm_str']);
  const fetched = assertOk(await latest.api('GET', `/api/v1/messages/${r.id}`));
  assert.equal(fetched.message.content, '<p>hello</p>');
});

test('aliases a route declares are not reported as ignored', async () => {
  const r = assertOk(await latest.api('POST', '/api/v1/messages', {
    params: { type: 'private', to: JSON.stringify([latest.owner.id]), subject: 'x', content: 'hi' },
  }));
  // `subject` is the old name of `topic`, taken by POST /messages: not ignored.
  assert.equal('ignored_parameters_unsupported' in r, false);
});

test('register and the cached answers (GET /messages) list them too', async () => {
  const reg = assertOk(await latest.api('POST', '/api/v1/register', { params: { fetch_event_types: JSON.stringify(['realm_user']), not_a_param: 'x' } }));
  assert.deepEqual(reg.ignored_parameters_unsupported, ['not_a_param']);
  assert.equal(typeof reg.queue_id, 'string');
  const msgs = assertOk(await latest.api('GET', '/api/v1/messages', { query: { anchor: 'newest', num_before: 1, num_after: 0, nope: 1 } }));
  assert.deepEqual(msgs.ignored_parameters_unsupported, ['nope']);
  assert.ok(Array.isArray(msgs.messages));
});

test('at 122 no answer carries the list, as the spec shows them', async () => {
  const r = assertOk(await spec.api('GET', '/api/v1/users/me', { query: { frobnicate: 'yes' } }));
  assert.equal('ignored_parameters_unsupported' in r, false);
  const sent = assertOk(await spec.api('POST', '/api/v1/messages', {
    params: { type: 'private', to: JSON.stringify([spec.owner.id]), content: 'hello', realm_str: 'zulip' },
  }));
  assert.equal('ignored_parameters_unsupported' in sent, false);
});
