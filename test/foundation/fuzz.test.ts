import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testApp, basic, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { routes } from '../../src/http/routes.js';
import { Role } from '../../src/lib/roles.js';
import { declaredParamNames, routeParams, validJson, type ParamKind, type ParamSpec } from './route-params.js';

/**
 * Generated input over every route in the table (so endpoints join this test as they
 * land): random parameter names and values, random path segments, random callers.
 * Whatever arrives, the answer is Zulip's JSON envelope and never a 500.
 */
let t: TestApp;
let callers: TestUser[];

before(async () => {
  t = await testApp();
  callers = [t.owner, await t.createUser({ role: Role.MEMBER }), await t.createUser({ role: Role.GUEST }), await t.createUser({ role: Role.ADMINISTRATOR })];
});
after(() => t.close());

// Every name a route declares: a random body uses the names handlers read.
const KNOWN_PARAMS = declaredParamNames(routes);

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];
const jsonish = fc.oneof(
  fc.constant('[]'), fc.constant('{}'), fc.constant('null'), fc.constant('[[]]'), fc.constant('[{}]'), fc.constant('[null]'),
  fc.json().map(String), fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.record({ name: fc.string(), description: fc.string() })), { maxLength: 4 }).map((v) => JSON.stringify(v)),
);
const scalar = fc.oneof(
  fc.string(), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('true', 'false', '0', '-1', '1e400', 'NaN', '9999999999999999999999', '', ' ', '\u0000', 'newest', 'oldest', 'first_unread', 'owner@parley.test'),
  // Names every JavaScript object has: a lookup table must not mistake them for its own keys.
  fc.constantFrom(...PROTO_NAMES), fc.constantFrom(...PROTO_NAMES).map((n) => `\`\`\`${n}\nx\n\`\`\``), fc.constantFrom(...PROTO_NAMES).map((n) => `:${n}: @**${n}** #**${n}**`),
  fc.constantFrom(...PROTO_NAMES).map((n) => JSON.stringify([{ operator: n, operand: n }])), fc.constantFrom(...PROTO_NAMES).map((n) => JSON.stringify([{ operator: 'is', operand: n }])),
  fc.integer().map(String), fc.string({ minLength: 1000, maxLength: 3000 }),
);
const value = fc.oneof(scalar, jsonish);
const params = fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_PARAMS), fc.string({ maxLength: 12 })), value, { maxKeys: 6 });
const segment = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.constantFrom('1', '2', '3', '0', '999999', '-1', '99999999999999999999', 'me', 'owner@parley.test', 'x%00y', '%E2%98%83'), fc.nat({ max: 50 }).map(String), fc.webSegment());

function fillPath(path: string, segs: string[]): string {
  let i = 0;
  return path.replace(/:[a-z_]+/g, () => encodeURI(segs[i++ % segs.length] ?? '1').replace(/%25/g, '%'));
}

async function freshCaller(i: number): Promise<TestUser | null> {
  if (i >= callers.length) return null;
  // Keys change under the fuzz (api_key/regenerate), so read the current one.
  const row = await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', callers[i]!.id).executeTakeFirstOrThrow();
  return { ...callers[i]!, apiKey: row.api_key };
}

// Pages outside the API answer HTML; their own tests cover awkward input. So do file
// downloads (a wildcard path answering bytes or HTML: test/uploads).
for (const route of routes.filter((r) => r.prefix === undefined && r.only !== 'web' && !r.path.includes('*'))) {
  test(`fuzz ${route.method} ${route.path}: never a 500, always the JSON envelope`, { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(params, fc.array(segment, { minLength: 1, maxLength: 3 }), fc.nat({ max: callers.length }), fc.boolean(),
      async (p, segs, who, asQuery) => {
        const as = await freshCaller(who);
        const url = `/api/v1${fillPath(route.path, segs)}`;
        const headers: Record<string, string> = { host: HOST };
        if (as) headers.authorization = basic(as.email, as.apiKey);
        const body = new URLSearchParams(p).toString();
        const useQuery = route.method === 'GET' || asQuery;
        const res = await Promise.race([
          t.app.http.inject({
            method: route.method, headers: useQuery ? headers : { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            url: useQuery ? `${url}?${body}` : url, ...(useQuery ? {} : { payload: body }),
          }),
          new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no answer within 10 s: ${route.method} ${url}`)), 10_000)),
        ]);
        assert.ok(res.statusCode < 500, `${route.method} ${url} ${body} -> ${res.statusCode} ${res.body}`);
        const json = res.json();
        assert.ok(json.result === 'success' || json.result === 'error', res.body);
        if (json.result === 'error') {
          assert.equal(typeof json.msg, 'string');
          // The one error the spec shows without a code: a missing (or another user's) draft.
          if (!(json.msg === 'Draft does not exist' && res.statusCode === 404)) assert.equal(typeof json.code, 'string');
        }
      }), { numRuns: 40 });
  });
}

/**
 * Generated from each route's declared parameters (its `params` schemas, route-params.ts): every parameter is, independently, well-formed, of the wrong type,
 * oversize, malformed or missing, and the body goes as a query string, a form, multipart
 * (as zulip-js sends every POST) or JSON. Never a 500, always the JSON envelope.
 */
const valid: Record<'str' | 'int' | 'bool', fc.Arbitrary<string>> = {
  str: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('stream', 'private', 'newest', 'add', 'remove', 'read', 'owner@parley.test', 'general')),
  int: fc.integer({ min: -2, max: 60 }).map(String),
  bool: fc.constantFrom('true', 'false'),
};
// JSON-encoded parameters: values of the declared shape, made from the schema itself.
const validFor = (s: ParamSpec): fc.Arbitrary<string> =>
  (s.kind === 'str' || s.kind === 'int' || s.kind === 'bool' ? valid[s.kind] : validJson(s.schema).map((v) => JSON.stringify(v)));
const wrongType: Record<ParamKind, fc.Arbitrary<string>> = {
  str: fc.constantFrom('[]', '{}', '5', 'null'),
  int: fc.constantFrom('abc', '1.5', '"5"', 'true', '[1]', '0x10', '1e3', ' 7 '),
  bool: fc.constantFrom('1', 'yes', '"true"', 'True', 'null', '[]'),
  json: fc.constantFrom('not json', '{"a":', "{'a': 1}", 'undefined', 'NaN'),
  intList: fc.constantFrom('5', '"1,2"', '{}', '[1,"a"]', '[1.5]', '[null]', '[[1]]', '1,2,3'),
  strList: fc.constantFrom('"a"', '{}', '[1]', '[null]', '[["a"]]', 'a,b'),
};
const oversize = fc.constantFrom(
  '9'.repeat(400), '-99999999999999999999', '1e400', 'x'.repeat(200_000), JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i)),
  JSON.stringify(Array.from({ length: 5_000 }, (_, i) => `s${i}`)), `${'['.repeat(5_000)}${']'.repeat(5_000)}`, JSON.stringify({ k: 'v'.repeat(100_000) }),
);
const malformed = fc.constantFrom('\u0000', 'a\u0000b', '\ud800', '\u202e\u0001', '', ' ', '%', '%00', '\r\n', '\\');
type Choice = { kind: 'valid' | 'wrong' | 'oversize' | 'malformed' | 'missing'; value?: string };
const choiceFor = (spec: ParamSpec): fc.Arbitrary<Choice> => fc.oneof(
  { weight: 3, arbitrary: validFor(spec).map((value): Choice => ({ kind: 'valid', value })) },
  { weight: 2, arbitrary: wrongType[spec.kind].map((value): Choice => ({ kind: 'wrong', value })) },
  { weight: 1, arbitrary: oversize.map((value): Choice => ({ kind: 'oversize', value })) },
  { weight: 1, arbitrary: malformed.map((value): Choice => ({ kind: 'malformed', value })) },
  { weight: 2, arbitrary: fc.constant<Choice>({ kind: 'missing' }) },
);
const ENCODINGS = ['query', 'form', 'multipart', 'json'] as const;

function encode(enc: (typeof ENCODINGS)[number], p: Record<string, string>): { url: string; headers: Record<string, string>; payload?: string | Buffer } {
  if (enc === 'query') return { url: `?${new URLSearchParams(p)}`, headers: {} };
  if (enc === 'form') return { url: '', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(p).toString() };
  if (enc === 'json') return { url: '', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(p) };
  const b = 'fuzzBoundary7MA4YWxk';
  const parts = Object.entries(p).map(([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  return { url: '', headers: { 'content-type': `multipart/form-data; boundary=${b}` }, payload: Buffer.from(`${parts.join('')}--${b}--\r\n`) };
}

for (const route of routes.filter((r) => r.prefix === undefined && r.only !== 'web' && !r.path.includes('*'))) {
  test(`schema fuzz ${route.method} ${route.path}: wrong-type, oversize, malformed and missing parameters`, { timeout: 180_000 }, async () => {
    const specs = routeParams(route);
    const record = fc.record(Object.fromEntries(specs.map((s) => [s.name, choiceFor(s)])) as Record<string, fc.Arbitrary<Choice>>);
    await fc.assert(fc.asyncProperty(record, fc.array(segment, { minLength: 1, maxLength: 3 }), fc.nat({ max: callers.length - 1 }), fc.constantFrom(...ENCODINGS),
      async (choices, segs, who, enc) => {
        const as = (await freshCaller(who))!;
        const p: Record<string, string> = {};
        for (const [name, c] of Object.entries(choices)) if (c.kind !== 'missing') p[name] = c.value!;
        const e = encode(route.method === 'GET' ? 'query' : enc, p);
        const url = `/api/v1${fillPath(route.path, segs)}${e.url}`;
        const res = await t.app.http.inject({
          method: route.method, url, headers: { host: HOST, authorization: basic(as.email, as.apiKey), ...e.headers }, ...(e.payload !== undefined ? { payload: e.payload } : {}),
        });
        const shown = `${route.method} ${url.slice(0, 200)} [${enc}] ${JSON.stringify(Object.fromEntries(Object.entries(choices).map(([k, c]) => [k, c.kind])))}`;
        assert.ok(res.statusCode < 500, `${shown} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
        let json: { result?: string; msg?: unknown; code?: unknown };
        try {
          json = res.json();
        } catch {
          assert.fail(`${shown} -> not JSON: ${res.body.slice(0, 300)}`);
        }
        assert.ok(json.result === 'success' || json.result === 'error', res.body.slice(0, 300));
        if (json.result === 'error') {
          assert.equal(typeof json.msg, 'string');
          if (!(json.msg === 'Draft does not exist' && res.statusCode === 404)) assert.equal(typeof json.code, 'string', `${shown}: ${res.body}`);
        }
      }), { numRuns: 25 });
  });
}

test('the server still answers normally after the fuzz', async () => {
  const owner = (await freshCaller(0))!;
  const res = await t.api('GET', '/api/v1/users/me', { as: owner });
  assert.equal(res.status, 200);
  assert.equal(res.body.email, owner.email);
});
