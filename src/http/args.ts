/**
 * Decodes a request's parameters as its route declares them (src/schemas/params.ts).
 * Decoding is lazy, one parameter when the handler first reads it, so that errors come in
 * the order Zulip's views raise them: a permission refused before a malformed parameter is
 * looked at, the first parameter read refused before the second.
 */
import { Kind, OptionalKind, type TObject, type TSchema } from '@sinclair/typebox';
import { badRequest, missingArgument } from '../errors.js';
import { checkListSize } from '../lib/lists.js';
import { ALIASES } from '../schemas/params.js';
import { parseIntParam, parseJson, type Params, type Json } from './params.js';

type Args = Readonly<Record<string, unknown>>;
export type ArgsFactory = (raw: Params) => Args;

interface Decl { name: string; names: string[]; schema: TSchema; required: boolean; fallback: unknown }

function declsOf(params: TObject): Decl[] {
  return Object.entries(params.properties).map(([name, schema]) => ({
    name, names: [name, ...((schema[ALIASES] as string[] | undefined) ?? [])], schema,
    required: schema[OptionalKind] !== 'Optional', fallback: schema.default,
  }));
}

/** The parameters a request carried that its route does not declare, in the order sent. */
export function undeclaredNames(args: object): string[] {
  return (args as { undeclared(): string[] }).undeclared();
}

/** The names a route declares, aliases included: what a request carries beyond them is ignored. */
export function declaredNames(params: TObject): Set<string> {
  return new Set(declsOf(params).flatMap((d) => d.names));
}

/** One parameter's raw text, decoded by its schema's wire rule. */
export function decodeArg(name: string, raw: string, schema: TSchema): unknown {
  switch (schema[Kind]) {
    case 'String': return checkLength(name, raw, schema);
    case 'Integer': return parseIntParam(name, raw);
    case 'Boolean': {
      const v = parseJson(name, raw);
      if (typeof v !== 'boolean') throw badRequest(`${name} is not a boolean`);
      return v;
    }
    default: return checkJson(name, parseJson(name, raw), schema);
  }
}

/** Zulip's check_capped_string: a length in code points. */
function checkLength(at: string, v: string, schema: TSchema): string {
  const max = schema.maxLength as number | undefined;
  if (max !== undefined && v.length > max && [...v].length > max) throw badRequest(`${at} is too long (limit: ${max} characters)`);
  return v;
}

/** Zulip's validators over a JSON value (zerver/lib/validator.py), with their messages. */
export function checkJson(at: string, v: Json, schema: TSchema): Json {
  switch (schema[Kind]) {
    case 'Unknown': return v;
    case 'String':
      if (typeof v !== 'string') throw badRequest(`${at} is not a string`);
      return checkLength(at, v, schema);
    case 'Integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw badRequest(`${at} is not an integer`);
      return v;
    case 'Boolean':
      if (typeof v !== 'boolean') throw badRequest(`${at} is not a boolean`);
      return v;
    case 'Array': {
      if (!Array.isArray(v)) throw badRequest(`${at} is not a list`);
      // The length before any item is looked at: a huge list costs nothing to refuse.
      if (typeof schema.maxItems === 'number') checkListSize(at, v.length, schema.maxItems);
      v.forEach((item, i) => checkJson(`${at}[${i}]`, item, schema.items as TSchema));
      return v;
    }
    case 'Object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`${at} is not a dict`);
      const props = schema.properties as Record<string, TSchema>;
      for (const key of (schema.required as string[] | undefined) ?? []) if (!Object.hasOwn(v, key)) throw badRequest(`${key} key is missing from ${at}`);
      for (const [key, sub] of Object.entries(props)) if (Object.hasOwn(v, key)) checkJson(`${at}["${key}"]`, v[key]!, sub);
      return v;
    }
    case 'Union': {
      // A union of lists (ids or emails, say): the length is refused as such, before the shapes.
      const options = schema.anyOf as TSchema[];
      if (Array.isArray(v) && options.every((o) => o[Kind] === 'Array' && typeof o.maxItems === 'number')) {
        checkListSize(at, v.length, Math.max(...options.map((o) => o.maxItems as number)));
      }
      for (const option of options) {
        try {
          return checkJson(at, v, option);
        } catch {
          // the next shape
        }
      }
      throw badRequest(`${at} is not an allowed_type`);
    }
    default:
      throw new Error(`parameter ${at}: no wire rule for schema kind ${String(schema[Kind])}`);
  }
}

/**
 * A class per route whose getters decode on first read: a getter on a shared prototype
 * costs a send nothing measurable, where building an object per request did.
 */
export function argsFactory(params: TObject): ArgsFactory {
  const declared = declaredNames(params);
  class RouteArgs {
    constructor(readonly raw: Params) {}
    /** What the request carried beyond the declaration (Zulip's ignored_parameters_unsupported). */
    undeclared(): string[] {
      return this.raw.names().filter((n) => !declared.has(n));
    }
  }
  for (const d of declsOf(params)) {
    Object.defineProperty(RouteArgs.prototype, d.name, {
      enumerable: true,
      get(this: RouteArgs) {
        const present = d.names.find((n) => this.raw.has(n));
        if (present === undefined) {
          if (d.required) throw missingArgument(d.name);
          return d.fallback;
        }
        return decodeArg(present, this.raw.rawValue(present)!, d.schema);
      },
    });
  }
  return (raw) => new RouteArgs(raw) as unknown as Args;
}
