import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox';
import fc from 'fast-check';
import type { Route } from '../../src/http/route.js';

/**
 * Each route's parameters, as the route declares them (`params` in its handler file, the
 * one declaration that also decodes requests and makes the OpenAPI document): the fuzz
 * test's inputs come from the same schemas as the server's decoding.
 */
export type ParamKind = 'str' | 'int' | 'bool' | 'json' | 'intList' | 'strList';
export interface ParamSpec { name: string; kind: ParamKind; required: boolean; schema: TSchema }

function kindOf(s: TSchema): ParamKind {
  switch (s[Kind]) {
    case 'String': return 'str';
    case 'Integer': return 'int';
    case 'Boolean': return 'bool';
    case 'Array': {
      const item = (s.items as TSchema)[Kind];
      return item === 'Integer' ? 'intList' : item === 'String' ? 'strList' : 'json';
    }
    default: return 'json';
  }
}

export function routeParams(route: Route): ParamSpec[] {
  return Object.entries(route.schema.properties).map(([name, schema]) => ({
    name, schema, kind: kindOf(schema), required: schema[OptionalKind] !== 'Optional',
  }));
}

/** Every parameter name any route declares. */
export function declaredParamNames(routes: readonly Route[]): string[] {
  return [...new Set(routes.flatMap((r) => Object.keys(r.schema.properties)))].sort();
}

/** Well-formed JSON values of a schema (its lists short, its integers small enough to name real rows). */
export function validJson(s: TSchema): fc.Arbitrary<unknown> {
  switch (s[Kind]) {
    case 'String': return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('general', 'owner@parley.test', 'color', 'is_muted'));
    case 'Integer': return fc.integer({ min: -2, max: 60 });
    case 'Boolean': return fc.boolean();
    case 'Array': return fc.array(validJson(s.items as TSchema), { maxLength: Math.min(5, (s.maxItems as number | undefined) ?? 5) });
    case 'Object': {
      const props = s.properties as Record<string, TSchema>;
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validJson(v)])), { requiredKeys: (s.required as string[] | undefined) ?? [] });
    }
    case 'Union': return fc.oneof(...(s.anyOf as TSchema[]).map(validJson));
    default: return fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom([], {}, 'x', [{ operator: 'is', operand: 'private' }]));
  }
}
