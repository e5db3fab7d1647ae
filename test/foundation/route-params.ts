import fs from 'node:fs';
import path from 'node:path';
import type { Route } from '../../src/http/route.js';

/**
 * Each route's parameter schema, read from its handler module: every `params.<kind>('name')`
 * call there (Params' typed readers: str, int, bool, json, intList, strList and their opt*
 * forms) names a parameter and its wire type. A module's handlers share one list: a route
 * is fuzzed with its neighbours' parameters too, which is harmless (unknown parameters are
 * ignored) and catches a handler reading one it was not meant to.
 */
export type ParamKind = 'str' | 'int' | 'bool' | 'json' | 'intList' | 'strList';
export interface ParamSpec { name: string; kind: ParamKind; required: boolean }

const READER = /\.(opt)?(Str|Int|Bool|Json|IntList|StrList|str|int|bool|json|intList|strList)\('([a-z_]+)'/g;
const DIR = path.join(import.meta.dirname, '../../src/http/handlers');

function specsOf(file: string): ParamSpec[] {
  const out = new Map<string, ParamSpec>();
  for (const m of fs.readFileSync(file, 'utf8').matchAll(READER)) {
    const kind = (m[2]![0]!.toLowerCase() + m[2]!.slice(1)) as ParamKind;
    const name = m[3]!;
    const prev = out.get(name);
    out.set(name, { name, kind: prev?.kind ?? kind, required: (prev?.required ?? false) || !m[1] });
  }
  return [...out.values()];
}

/** Route object -> the parameters its module reads. */
export async function routeParams(): Promise<Map<Route, ParamSpec[]>> {
  const out = new Map<Route, ParamSpec[]>();
  for (const f of fs.readdirSync(DIR).filter((x) => x.endsWith('.ts'))) {
    const file = path.join(DIR, f);
    const mod = (await import(file)) as Record<string, unknown>;
    const specs = specsOf(file);
    for (const v of Object.values(mod)) {
      if (Array.isArray(v)) for (const r of v as Route[]) if (r && typeof r === 'object' && 'handler' in r) out.set(r, specs);
    }
  }
  return out;
}
