import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testApp, HOST, type TestApp } from '../helpers/app.js';
import { routes } from '../../src/http/routes.js';

/**
 * /api/v1/openapi.json is made from the routes table: valid OpenAPI 3.1, every API route in
 * it with each parameter it declares, nothing in it that no route serves.
 */
let t: TestApp;
type Operation = {
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, unknown>; security: unknown[]; summary?: string;
};
let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

before(async () => {
  t = await testApp();
  const res = await t.app.http.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { host: HOST } });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  doc = res.json();
});
after(() => t.close());

test('the document is valid OpenAPI 3.1, and served without credentials', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc as never);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 3000));
});

const apiRoutes = routes.filter((r) => r.prefix === undefined && r.only !== 'web');
const docPath = (p: string) => p.replace(/:([a-z_]+)/g, '{$1}');

test('every API route is in it, with a summary, its answer, its security and every declared parameter', () => {
  for (const r of apiRoutes) {
    const op = doc.paths[docPath(r.path)]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${r.path} is missing`);
    assert.ok(op.summary, `${r.method} ${r.path} has no summary`);
    assert.ok(op.responses['200'] && op.responses.default, `${r.method} ${r.path}: responses`);
    assert.deepEqual(op.security, r.auth === 'none' ? [] : r.auth === 'webhook' ? [{ basicAuth: [] }, { apiKey: [] }] : [{ basicAuth: [] }]);
    const documented = new Map<string, boolean>();
    for (const p of op.parameters ?? []) if (p.in === 'query') documented.set(p.name, p.required === true);
    for (const c of Object.values(op.requestBody?.content ?? {})) {
      for (const name of Object.keys(c.schema.properties)) documented.set(name, (c.schema.required ?? []).includes(name));
    }
    documented.delete('file');
    const declared = Object.keys(r.schema.properties);
    assert.deepEqual([...documented.keys()].sort(), [...declared].sort(), `${r.method} ${r.path}: parameters`);
    for (const name of declared) assert.equal(documented.get(name), (r.schema.required ?? []).includes(name), `${r.method} ${r.path}: ${name} required?`);
    for (const m of r.path.matchAll(/:([a-z_]+)/g)) assert.ok(op.parameters?.some((p) => p.in === 'path' && p.name === m[1]), `${r.path}: path parameter ${m[1]}`);
  }
});

test('every JSON answer is declared: the routes without one answer files or pages', () => {
  const undeclared = apiRoutes.filter((r) => !r.answer).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(undeclared, ['GET /user_uploads/:realm_id/*']);
});

test('nothing in it that no route serves', () => {
  const served = new Set(apiRoutes.map((r) => `${r.method.toLowerCase()} ${docPath(r.path)}`));
  for (const [path, ops] of Object.entries(doc.paths)) for (const method of Object.keys(ops)) assert.ok(served.has(`${method} ${path}`), `${method} ${path}`);
});

test('a wire object is declared once, in components, and referred to', () => {
  for (const name of ['User', 'Stream', 'Subscription', 'Message', 'UserGroup']) assert.ok(doc.components.schemas[name], name);
  assert.ok(!JSON.stringify(doc).includes('"$id"'));
  const getUsers = JSON.stringify(doc.paths['/users']!.get!.responses['200']);
  assert.match(getUsers, /#\/components\/schemas\/User/);
});

test('the JSON-encoded parameters say so; the query string carries GET parameters', () => {
  const register = doc.paths['/register']!.post!;
  const form = register.requestBody!.content['application/x-www-form-urlencoded'] as unknown as { encoding: Record<string, { contentType: string }> };
  assert.equal(form.encoding.event_types!.contentType, 'application/json');
  const getMessages = doc.paths['/messages']!.get!;
  const names = (getMessages.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  for (const n of ['anchor', 'num_before', 'num_after', 'narrow']) assert.ok(names.includes(n), n);
});
