/**
 * The OpenAPI 3.1 document of Parley's API, made from the routes table: each route's
 * declared parameters and answer (src/http/route.ts), nothing written twice. Served at
 * /api/v1/openapi.json; test/foundation/openapi.test.ts checks that it is valid and
 * that it names every route.
 */
import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox';
import type { Route } from './route.js';
import { ALIASES } from '../schemas/params.js';

type Json = Record<string, unknown>;

/** The wire rule of a top-level parameter: scalars as text, everything else as JSON text. */
const isJsonEncoded = (s: TSchema) => !['String', 'Integer', 'Boolean'].includes(String(s[Kind]));

/**
 * A schema as plain JSON Schema (TypeBox's symbols dropped), each named wire object
 * (one with a `$id`) moved to components and referred to, so that it appears once.
 */
function plain(schema: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => plain(s, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) if (k !== ALIASES && k !== 'x-json') out[k] = plain(v, components);
  const id = out.$id;
  if (typeof id !== 'string') return out;
  delete out.$id;
  components[id] ??= out;
  return { $ref: `#/components/schemas/${id}` };
}

function describe(s: TSchema): string | undefined {
  const aliases = s[ALIASES] as string[] | undefined;
  const text = [s.description as string | undefined, aliases ? `Also accepted as ${aliases.map((a) => `\`${a}\``).join(', ')}.` : undefined].filter(Boolean).join(' ');
  return text || undefined;
}

function operation(route: Route, components: Record<string, Json>): Json {
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:]+([a-z_]+)?/g, (_m, w: string | undefined) => (w ? `_${w}` : ''))}`,
    summary: route.summary,
    tags: [route.path.split('/')[1]!.replace(/^:.*/, 'misc')],
  };
  const params: Json[] = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const props = Object.entries(route.schema.properties);
  const inBody = route.method !== 'GET' && route.method !== 'DELETE';
  const files = route.auth !== 'webhook' && route.streamsFiles === true;
  // Zulip reads the query string of every method; bodies carry the rest. GET and DELETE use the query.
  if (!inBody) {
    for (const [name, s] of props) {
      const required = s[OptionalKind] !== 'Optional';
      const schema = plain(s, components);
      params.push({ name, in: 'query', required, description: describe(s), ...(isJsonEncoded(s) ? { content: { 'application/json': { schema } } } : { schema }) });
    }
  } else if (props.length > 0 || files) {
    const properties: Json = {};
    const encoding: Json = {};
    for (const [name, s] of props) {
      properties[name] = plain(s, components);
      if (isJsonEncoded(s)) encoding[name] = { contentType: 'application/json' };
    }
    if (files) properties.file = { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' };
    const required = props.filter(([, s]) => s[OptionalKind] !== 'Optional').map(([n]) => n);
    const body = { schema: { type: 'object', properties, ...(required.length ? { required } : {}) }, ...(Object.keys(encoding).length ? { encoding } : {}) };
    op.requestBody = {
      required: required.length > 0 || files,
      content: files ? { 'multipart/form-data': body } : { 'application/x-www-form-urlencoded': body, 'multipart/form-data': body },
    };
  }
  if (params.length) op.parameters = params;
  if (route.auth === 'user' && route.requires) {
    op.description = { admin: 'Organization administrators and owners only.', member: 'Members and administrators only: not guests, not bots.', human: 'Not for bots.' }[route.requires];
  }
  op.security = route.auth === 'none' ? [] : route.auth === 'webhook' ? [{ basicAuth: [] }, { apiKey: [] }] : [{ basicAuth: [] }];
  const success = route.answer
    ? { allOf: [{ $ref: '#/components/schemas/Success' }, plain(route.answer, components)] }
    : { $ref: '#/components/schemas/Success' };
  op.responses = {
    200: { description: 'Success', content: { 'application/json': { schema: success } } },
    default: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  };
  return op;
}

export function openApiDocument(routes: readonly Route[], level: number): Json {
  const components: Record<string, Json> = {
    Success: {
      type: 'object', required: ['result', 'msg'],
      properties: {
        result: { const: 'success' }, msg: { type: 'string' },
        ...(level >= 167 ? { ignored_parameters_unsupported: { type: 'array', items: { type: 'string' }, description: 'The parameters sent that this endpoint does not take (feature level 167)' } } : {}),
      },
    },
    Error: {
      type: 'object', required: ['result', 'msg', 'code'],
      properties: { result: { const: 'error' }, msg: { type: 'string', description: 'What went wrong, in Zulip\'s words' }, code: { type: 'string' } },
      additionalProperties: true,
    },
  };
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.prefix !== undefined || route.only === 'web') continue;
    const path = route.path.replace(/:([a-z_]+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley', version: `feature level ${level}`,
      description: `Parley's API: the Zulip REST API at feature level ${level}. Every route also answers under /json for the web app (session cookie and CSRF header).`,
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'The user\'s email and API key' },
        apiKey: { type: 'apiKey', in: 'query', name: 'api_key', description: 'An incoming-webhook bot\'s API key' },
      },
    },
  };
}
