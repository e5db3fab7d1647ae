import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, ROLES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { validateEvent } from '../../src/events/schemas.js';
import { expandTemplate, formatToTemplate, isValidUrlTemplate, templateToFormat, templateVariables } from '../../src/lib/url-template.js';

/**
 * Linkifiers of levels 176 (RFC 6570 url_template, the linkifier_url_template capability,
 * realm_filters always empty) and 202 (PATCH /realm/linkifiers reorders), at 277, and the
 * level-122 forms unchanged on a 122 server.
 */
let t: TestApp;
let spec: TestApp;
let u: Record<keyof typeof ROLES, TestUser>;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  u = await t.createUsers(ROLES);
  await createStreams(t, { general: [t.owner, u.member] });
  await createStreams(spec, { general: [spec.owner] });
});
after(async () => { await t.close(); await spec.close(); });

const add = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('POST', '/api/v1/realm/filters', { as: as ?? app.owner, params });
const list = async (app: TestApp) => assertOk(await app.api('GET', '/api/v1/realm/linkifiers', {})).linkifiers;
const CAPABLE = { client_capabilities: { linkifier_url_template: true } };
const register = async (app: TestApp, extra: Record<string, unknown> = {}, as?: TestUser) =>
  assertOk(await app.api('POST', '/api/v1/register', { as, params: { fetch_event_types: ['realm_linkifiers', 'realm_filters'], event_types: ['realm_linkifiers', 'realm_filters'], ...extra } }));
const poll = async (app: TestApp, queueId: string, as?: TestUser) =>
  assertOk(await app.api('GET', '/api/v1/events', { as, params: { queue_id: queueId, last_event_id: -1, dont_block: true } })).events as Array<Record<string, any>>;
async function clearAll(app: TestApp): Promise<void> {
  for (const l of await list(app)) assertOk(await app.api('DELETE', `/api/v1/realm/filters/${l.id}`, {}));
}

test('RFC 6570: validation, variables, expansion of every operator, and the format string conversions', () => {
  for (const good of ['https://x.com/{id}', 'https://x.com/{+path}{?q,lang}{#frag}', 'https://x.com{/a,b}{.ext}{;m}{&n}', 'https://x.com/%20/{id:3}', 'https://x.com/{a.b}{c*}']) {
    assert.equal(isValidUrlTemplate(good), true, good);
  }
  for (const bad of ['https://x.com/{id', 'https://x.com/{}', 'https://x.com/{a b}', 'https://x.com/ {id}', 'https://x.com/%zz', 'https://x.com/{id:0}', 'https://x.com/}', 'https://x.com/{!a}']) {
    assert.equal(isValidUrlTemplate(bad), false, bad);
  }
  assert.deepEqual(templateVariables('https://x.com/{a}{?b,c}'), ['a', 'b', 'c']);
  const v: Record<string, string> = { id: 'a b/c', path: 'a/b c', q: 'x&y', empty: '' };
  const get = (n: string) => v[n];
  assert.equal(expandTemplate('https://x.com/{id}', get), 'https://x.com/a%20b%2Fc');
  assert.equal(expandTemplate('https://x.com/{+path}', get), 'https://x.com/a/b%20c');
  assert.equal(expandTemplate('https://x.com/s{?q,empty,missing}', get), 'https://x.com/s?q=x%26y&empty=');
  assert.equal(expandTemplate('https://x.com{/id,missing}{#path}', get), 'https://x.com/a%20b%2Fc#a/b%20c');
  assert.equal(expandTemplate('https://x.com/{;empty}{.q}{&q}', get), 'https://x.com/;empty.x%26y&q=x%26y');
  assert.equal(expandTemplate('https://x.com/{id:3}/{missing}', get), 'https://x.com/a%20b/');
  assert.equal(expandTemplate('https://x.com/{id}', () => 'é'), 'https://x.com/%C3%A9');
  assert.equal(templateToFormat('https://x.com/{id}/100%25/%20{?q}{/a,b}'), 'https://x.com/%(id)s/100%25/%20?q=%(q)s/%(a)s/%(b)s');
  assert.equal(formatToTemplate('https://x.com/%(id)s/100%%/%20'), 'https://x.com/{id}/100%25/%20');
});

test('176: POST and PATCH /realm/filters take url_template (and still url_format_string); GET answers templates from 176, format strings at 122', async () => {
  const id = assertOk(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' })).id as number;
  const legacy = assertOk(await add(t, { pattern: 'PR (?P<n>[0-9]+)', url_format_string: 'https://github.com/pulls/%(n)s' })).id as number;
  assert.deepEqual(await list(t), [
    { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}', id },
    { pattern: 'PR (?P<n>[0-9]+)', url_template: 'https://github.com/pulls/{n}', id: legacy },
  ]);
  assertOk(await t.api('PATCH', `/api/v1/realm/filters/${id}`, { params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/t{?id}' } }));
  assert.equal((await list(t))[0].url_template, 'https://trac.example.com/t{?id}');
  await clearAll(t);

  // A level-122 server answers format strings, a template's own included.
  const old = assertOk(await add(spec, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' })).id as number;
  assert.deepEqual(await list(spec), [{ pattern: '#(?P<id>[0-9]+)', url_format: 'https://trac.example.com/ticket/%(id)s', id: old }]);
  assertError(await add(spec, { pattern: '#(?P<x>[0-9]+)' }), "Missing 'url_format_string' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'url_format_string' });
  await clearAll(spec);
});

test('176: url_template\'s errors, in Zulip\'s words and fields', async () => {
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)' }), "Missing 'url_template' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'url_template' });
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id' }), 'Invalid URL template.', 'BAD_REQUEST', 400,
    { errors: { url_template: ['Invalid URL template.'] } });
  // An empty template is a valid one without the pattern's group: Django reports both.
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: '' }), 'This field cannot be blank.', 'BAD_REQUEST', 400,
    { errors: { url_template: ['This field cannot be blank.'], __all__: ["Group 'id' in linkifier pattern is not present in URL template."] } });
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}/{zz}/{aa}' }),
    "Group 'aa' in URL template is not present in linkifier pattern.", 'BAD_REQUEST', 400,
    { errors: { __all__: ["Group 'aa' in URL template is not present in linkifier pattern."] } });
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)(?P<b>x)', url_template: 'https://x.com/{id}' }),
    "Group 'b' in linkifier pattern is not present in URL template.", 'BAD_REQUEST', 400,
    { errors: { __all__: ["Group 'b' in linkifier pattern is not present in URL template."] } });
  const id = assertOk(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}' })).id;
  assertError(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://y.com/{id}' }), 'Realm filter with this Realm and Pattern already exists.', 'BAD_REQUEST', 400,
    { errors: { __all__: ['Realm filter with this Realm and Pattern already exists.'] } });
  assertError(await add(t, { pattern: '#(?P<q>[0-9]+)', url_template: 'https://x.com/{q}' }, u.member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('PATCH', '/api/v1/realm/filters/987654', { params: { pattern: 'x', url_template: 'https://x.com/' } }), 'Linkifier not found.');
  assertOk(await t.api('DELETE', `/api/v1/realm/filters/${id}`, {}));
});

test('176: templates render, their values percent-encoded; format strings render as before', async () => {
  await clearAll(t);
  assertOk(await add(t, { pattern: '!(?P<q>[a-z+]+)', url_template: 'https://search.example.com/s{?q}' }));
  assertOk(await add(t, { pattern: '%(?P<q>[a-z+]+)', url_format_string: 'https://old.example.com/%(q)s' }));
  const id = await sendMessage(t, t.owner, { type: 'stream', to: 'general', topic: 'links', content: 'see !a+b and %c+d' });
  const m = assertOk(await t.api('GET', `/api/v1/messages/${id}`, {})).message;
  assert.match(m.content, /href="https:\/\/search\.example\.com\/s\?q=a%2Bb"/);
  assert.match(m.content, /href="https:\/\/old\.example\.com\/c\+d"/);
  await clearAll(t);
});

test('176: register: templates with linkifier_url_template, nothing without it; realm_filters empty; 122 unchanged', async () => {
  await clearAll(t);
  const id = assertOk(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}' })).id;
  const capable = await register(t, CAPABLE);
  assert.deepEqual(capable.realm_linkifiers, [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}', id }]);
  assert.deepEqual(capable.realm_filters, []);
  const plain = await register(t);
  assert.deepEqual(plain.realm_linkifiers, []);
  assert.deepEqual(plain.realm_filters, []);
  const oldId = assertOk(await add(spec, { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://x.com/%(id)s' })).id;
  // A 122 server knew no such capability: its clients get format strings, asked or not.
  for (const extra of [{}, CAPABLE]) {
    const old = await register(spec, extra);
    assert.deepEqual(old.realm_linkifiers, [{ pattern: '#(?P<id>[0-9]+)', url_format: 'https://x.com/%(id)s', id: oldId }]);
    assert.deepEqual(old.realm_filters, [['#(?P<id>[0-9]+)', 'https://x.com/%(id)s', oldId]]);
  }
  await clearAll(t);
  await clearAll(spec);
});

test('176: events: templates to queues with the capability, nothing to those without; both legacy forms at 122', async () => {
  const capable = await register(t, CAPABLE, u.member);
  const plain = await register(t, {}, u.member);
  const id = assertOk(await add(t, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}' })).id;
  const got = await poll(t, capable.queue_id, u.member);
  assert.deepEqual(got.map(({ id: _id, ...e }) => e), [{ type: 'realm_linkifiers', realm_linkifiers: [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}', id }] }]);
  for (const e of got) assert.deepEqual(validateEvent(e as any), []);
  assert.deepEqual(await poll(t, plain.queue_id, u.member), []);

  const old = await register(spec);
  const oldId = assertOk(await add(spec, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.com/{id}' })).id;
  const oldGot = await poll(spec, old.queue_id);
  assert.deepEqual(oldGot.map(({ id: _id, ...e }) => e), [
    { type: 'realm_linkifiers', realm_linkifiers: [{ pattern: '#(?P<id>[0-9]+)', url_format: 'https://x.com/%(id)s', id: oldId }] },
    { type: 'realm_filters', realm_filters: [['#(?P<id>[0-9]+)', 'https://x.com/%(id)s', oldId]] },
  ]);
  for (const e of oldGot) assert.deepEqual(validateEvent(e as any), []);
  await clearAll(t);
  await clearAll(spec);
});

test('202: PATCH /realm/linkifiers reorders (the list, register, the event, which one wins); its errors', async () => {
  await clearAll(t);
  const a = assertOk(await add(t, { pattern: 'ab(?P<id>[0-9]+)', url_template: 'https://a.example.com/{id}' })).id as number;
  const b = assertOk(await add(t, { pattern: '(?P<n>[a-z]+[0-9]+)', url_template: 'https://b.example.com/{n}' })).id as number;
  const c = assertOk(await add(t, { pattern: 'zz(?P<z>[0-9]+)', url_template: 'https://c.example.com/{z}' })).id as number;
  assert.deepEqual((await list(t)).map((l: any) => l.id), [a, b, c]);
  const before = await register(t, CAPABLE, u.member);
  assertOk(await t.api('PATCH', '/api/v1/realm/linkifiers', { params: { ordered_linkifier_ids: [c, b, a] } }));
  assert.deepEqual((await list(t)).map((l: any) => l.id), [c, b, a]);
  const events = await poll(t, before.queue_id, u.member);
  assert.deepEqual(events.map((e) => e.realm_linkifiers.map((l: any) => l.id)), [[c, b, a]]);
  for (const e of events) applyEvent(before, e as ClientEvent, u.member.id);
  assert.deepEqual(before.realm_linkifiers, (await register(t, CAPABLE, u.member)).realm_linkifiers);
  // The earlier linkifier wins where two match the same text: now b's.
  const id = await sendMessage(t, t.owner, { type: 'stream', to: 'general', topic: 'order', content: 'ab42' });
  assert.match(assertOk(await t.api('GET', `/api/v1/messages/${id}`, {})).message.content, /href="https:\/\/b\.example\.com\/ab42"/);

  const reorder = (ids: number[], as?: TestUser) => t.api('PATCH', '/api/v1/realm/linkifiers', { as, params: { ordered_linkifier_ids: ids } });
  assertError(await reorder([a, a, b, c]), 'The ordered list must not contain duplicated linkifiers');
  assertError(await reorder([a, b]), 'The ordered list must enumerate all existing linkifiers exactly once');
  assertError(await reorder([a, b, c, 987654]), 'The ordered list must enumerate all existing linkifiers exactly once');
  assertError(await reorder([a, b, c], u.member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await t.api('PATCH', '/api/v1/realm/linkifiers', { params: {} }), "Missing 'ordered_linkifier_ids' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'ordered_linkifier_ids' });
  assertUnauthenticated(await t.api('PATCH', '/api/v1/realm/linkifiers', { as: null, params: { ordered_linkifier_ids: [a, b, c] } }));
  // A new one goes last.
  const d = assertOk(await add(t, { pattern: 'dd(?P<d>[0-9]+)', url_template: 'https://d.example.com/{d}' })).id as number;
  assert.deepEqual((await list(t)).map((l: any) => l.id), [c, b, a, d]);
  await clearAll(t);
  assertOk(await t.api('PATCH', '/api/v1/realm/linkifiers', { params: { ordered_linkifier_ids: [] } }));
});

test('guard at 277 with the capability: register + add, update, reorder, delete events = a fresh register', async () => {
  await clearAll(t);
  const reg = await register(t, CAPABLE, u.member);
  const a = assertOk(await add(t, { pattern: 'g(?P<id>[0-9]+)', url_template: 'https://g.example.com/{id}' })).id;
  const b = assertOk(await add(t, { pattern: 'h(?P<id>[0-9]+)', url_format_string: 'https://h.example.com/%(id)s' })).id;
  assertOk(await t.api('PATCH', `/api/v1/realm/filters/${a}`, { params: { pattern: 'g(?P<id>[0-9]+)', url_template: 'https://g2.example.com/{id}' } }));
  assertOk(await t.api('PATCH', '/api/v1/realm/linkifiers', { params: { ordered_linkifier_ids: [b, a] } }));
  assertOk(await t.api('DELETE', `/api/v1/realm/filters/${b}`, {}));
  const c = assertOk(await add(t, { pattern: 'i(?P<id>[0-9]+)', url_template: 'https://i.example.com/{id}' })).id;
  for (const e of await poll(t, reg.queue_id, u.member)) {
    assert.deepEqual(validateEvent(e as any), []);
    applyEvent(reg, e as ClientEvent, u.member.id);
  }
  const fresh = await register(t, CAPABLE, u.member);
  assert.deepEqual(reg.realm_linkifiers, fresh.realm_linkifiers);
  assert.deepEqual(fresh.realm_linkifiers.map((l: any) => l.id), [a, c]);
  assert.deepEqual(reg.realm_filters, fresh.realm_filters);
  await clearAll(t);
});
