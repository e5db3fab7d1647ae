import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { validateEvent } from '../../src/events/schemas.js';

/**
 * Code playgrounds (Zulip's add_realm_playground, delete_realm_playground, feature level 49;
 * level 196's url_template in place of url_prefix), on a server of the run's level and on
 * one of the other form, so that each run sees both.
 */
let t: TestApp;
let other: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
before(async () => {
  t = await testApp();
  other = await testApp({ featureLevel: t.app.ctx.config.featureLevel >= 196 ? 122 : 277 });
  u = await t.createUsers(ROLES);
});
after(async () => { await t.close(); await other.close(); });

const templated = (app: TestApp) => app.app.ctx.config.featureLevel >= 196;
/** A playground's URL as the app's level takes it: a template, or the prefix the code is appended to. */
const urlParam = (app: TestApp, base: string) => (templated(app) ? { url_template: `${base}{code}` } : { url_prefix: base });
const add = (app: TestApp, params: Record<string, unknown>, as?: TestUser | null) =>
  app.api('POST', '/api/v1/realm/playgrounds', { as: as === undefined ? app.owner : as, params });
const remove = (app: TestApp, id: number | string, as?: TestUser | null) =>
  app.api('DELETE', `/api/v1/realm/playgrounds/${id}`, { as: as === undefined ? app.owner : as });
const REGISTER = { fetch_event_types: ['realm_playgrounds'], event_types: ['realm_playgrounds'] };
const register = async (app: TestApp, as?: TestUser) => assertOk(await app.api('POST', '/api/v1/register', { as, params: REGISTER }));
const poll = async (app: TestApp, queueId: string, as?: TestUser) =>
  assertOk(await app.api('GET', '/api/v1/events', { as, params: { queue_id: queueId, last_event_id: -1, dont_block: true } })).events as Array<Record<string, any>>;
async function clearAll(app: TestApp): Promise<void> {
  for (const p of (await register(app)).realm_playgrounds) assertOk(await remove(app, p.id));
}

test('add answers the id; register lists them in the level\'s form (url_template from 196, url_prefix before); delete removes', async () => {
  for (const app of [t, other]) {
    assert.deepEqual((await register(app)).realm_playgrounds, []);
    const id = assertOk(await add(app, { name: ' Rust playground ', pygments_language: 'rust', ...urlParam(app, 'https://play.rust-lang.org/?code=') })).id as number;
    assert.equal(typeof id, 'number');
    const expected = templated(app)
      ? { id, name: 'Rust playground', pygments_language: 'rust', url_template: 'https://play.rust-lang.org/?code={code}' }
      : { id, name: 'Rust playground', pygments_language: 'rust', url_prefix: 'https://play.rust-lang.org/?code=' };
    assert.deepEqual((await register(app)).realm_playgrounds, [expected]);
    // The same language under another name is another playground.
    const second = assertOk(await add(app, { name: 'Rust explorer', pygments_language: 'rust', ...urlParam(app, 'https://godbolt.org/?c=') })).id;
    assert.deepEqual((await register(app)).realm_playgrounds.map((p: any) => p.id), [id, second]);
    assertOk(await remove(app, id));
    assert.deepEqual((await register(app)).realm_playgrounds.map((p: any) => p.id), [second]);
    await clearAll(app);
  }
});

test('validation in Zulip\'s words', async () => {
  const url = urlParam(t, 'https://x.example.com/?c=');
  const missingUrl = templated(t) ? 'url_template' : 'url_prefix';
  assertError(await add(t, { name: 'P', pygments_language: 'python' }), `Missing '${missingUrl}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: missingUrl });
  assertError(await add(t, { pygments_language: 'python', ...url }), "Missing 'name' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'name' });
  assertError(await add(t, { name: 'P', ...url }), "Missing 'pygments_language' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'pygments_language' });
  assertError(await add(t, { name: 'P', pygments_language: 'py$thon', ...url }), 'Invalid characters in pygments language');
  assertError(await add(t, { name: 'P', pygments_language: 'x'.repeat(41), ...url }), 'pygments_language is too long (limit: 40 characters)');
  assertError(await add(t, { name: '  ', pygments_language: 'python', ...url }), 'This field cannot be blank.', 'BAD_REQUEST', 400,
    { errors: { name: ['This field cannot be blank.'] } });
  assertError(await add(t, { name: 'P', pygments_language: ' ', ...url }), 'This field cannot be blank.', 'BAD_REQUEST', 400,
    { errors: { pygments_language: ['This field cannot be blank.'] } });
  if (templated(t)) {
    // From level 196 the model takes lower case only.
    assertError(await add(t, { name: 'P', pygments_language: 'Python', ...url }), 'Invalid characters in pygments language', 'BAD_REQUEST', 400,
      { errors: { pygments_language: ['Invalid characters in pygments language'] } });
    assertError(await add(t, { name: 'P', pygments_language: 'python', url_template: 'https://x.com/{code' }), 'Invalid URL template.', 'BAD_REQUEST', 400,
      { errors: { url_template: ['Invalid URL template.'] } });
    assertError(await add(t, { name: 'P', pygments_language: 'python', url_template: 'https://x.com/{x}' }),
      'Missing the required variable "code" in the URL template', 'BAD_REQUEST', 400, { errors: { __all__: ['Missing the required variable "code" in the URL template'] } });
    assertError(await add(t, { name: 'P', pygments_language: 'python', url_template: 'https://x.com/{code}{?lang}' }),
      '"code" should be the only variable present in the URL template', 'BAD_REQUEST', 400, { errors: { __all__: ['"code" should be the only variable present in the URL template'] } });
    assertError(await add(t, { name: 'P', pygments_language: 'python', url_template: '' }), 'This field cannot be blank.', 'BAD_REQUEST', 400,
      { errors: { url_template: ['This field cannot be blank.'] } });
  } else {
    assertError(await add(t, { name: 'P', pygments_language: 'python', url_prefix: 'not a url' }), 'url_prefix is not a URL');
  }
  assertOk(await add(t, { name: 'P', pygments_language: 'python', ...url }));
  const dup = 'Realm playground with this Realm, Pygments language and Name already exists.';
  assertError(await add(t, { name: 'P', pygments_language: 'python', ...url }), dup, 'BAD_REQUEST', 400, { errors: { __all__: [dup] } });
  assertError(await remove(t, 987654), 'Invalid playground');
  // Another organization's id is as unknown as a missing one.
  const theirs = assertOk(await add(other, { name: 'O', pygments_language: 'python', ...urlParam(other, 'https://o.example.com/?c=') })).id;
  if (theirs !== undefined) assertError(await remove(t, theirs + 1000), 'Invalid playground');
  await clearAll(t);
  await clearAll(other);
});

test('administrators only; authentication required', async () => {
  const params = { name: 'P', pygments_language: 'python', ...urlParam(t, 'https://x.example.com/?c=') };
  const id = assertOk(await add(t, params, u.admin)).id;
  for (const who of [u.member, u.guest]) {
    assertError(await add(t, { ...params, name: 'Q' }, who), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    assertError(await remove(t, id, who), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  assertUnauthenticated(await add(t, params, null));
  assertUnauthenticated(await remove(t, id, null));
  assertOk(await remove(t, id, u.admin));
});

test('guard: every active user hears realm_playgrounds with the whole list; register + events = a fresh register', async () => {
  for (const app of [t, other]) {
    const viewers = app === t ? [u.member, u.guest, t.owner] : [other.owner];
    const regs = new Map<TestUser, Record<string, any>>();
    for (const who of viewers) regs.set(who, await register(app, who));
    const a = assertOk(await add(app, { name: 'A', pygments_language: 'python', ...urlParam(app, 'https://a.example.com/?c=') })).id;
    const b = assertOk(await add(app, { name: 'B', pygments_language: 'c++', ...urlParam(app, 'https://b.example.com/?c=') })).id;
    assertOk(await remove(app, a));
    for (const [who, reg] of regs) {
      const events = (await poll(app, reg.queue_id, who)).filter((e) => e.type !== 'heartbeat');
      assert.deepEqual(events.map((e) => [e.type, e.realm_playgrounds.map((p: any) => p.id)]), [
        ['realm_playgrounds', [a]], ['realm_playgrounds', [a, b]], ['realm_playgrounds', [b]],
      ]);
      const key = templated(app) ? 'url_template' : 'url_prefix';
      assert.deepEqual(Object.keys(events[2]!.realm_playgrounds[0]).sort(), ['id', 'name', 'pygments_language', key].sort());
      for (const e of events) {
        assert.deepEqual(validateEvent(e as any), []);
        applyEvent(reg, e as ClientEvent, who.id);
      }
      assert.deepEqual(reg.realm_playgrounds, (await register(app, who)).realm_playgrounds);
    }
    await clearAll(app);
  }
});
