/**
 * The vocabulary of route parameters. A route declares its parameters once, as TypeBox
 * schemas built here; from that one declaration come the request decoding
 * (src/http/args.ts, Zulip's wire rules and error wording), the handler's static types,
 * the generated-input test's values and the OpenAPI document.
 *
 * Zulip's wire rules by schema type: a string arrives raw, an integer as decimal text, a
 * boolean as JSON `true`/`false`, anything else (lists, dicts, unions) as JSON text checked
 * against the schema with Zulip's validator messages (`x[0] is not an integer`,
 * `name key is missing from x[1]`, `x is not an allowed_type`).
 */
import { Type, type SchemaOptions, type Static, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';

export { Type };

/** A parameter with a default: optional on the wire, always present for the handler. */
export type TDefaulted<S extends TSchema> = TOptional<S> & { readonly default: Static<S> };

/** What a handler reads: declared names, typed; optional ones without a default may be undefined. */
export type ArgsOf<P extends TProperties> = {
  readonly [K in keyof P]: P[K] extends { readonly default: unknown } ? Static<P[K]> : P[K] extends TOptional<TSchema> ? Static<P[K]> | undefined : Static<P[K]>;
};

/** Other names a parameter answers to (Zulip's REQ aliases: `subject` for `topic`); the first present wins. */
export const ALIASES = 'x-aliases';

export const Str = (o?: SchemaOptions & { aliases?: string[] }) => Type.String(withAliases(o));
export const Int = (o?: SchemaOptions) => Type.Integer(o);
export const Bool = (o?: SchemaOptions) => Type.Boolean(o);
/** A JSON list, at most `max` items long (lib/limits.ts LIST_LIMITS: no list is unbounded), its length checked first. */
export const List = <S extends TSchema>(item: S, max: number, o?: SchemaOptions) => Type.Array(item, { ...o, maxItems: max });
export const IntList = (max: number, o?: SchemaOptions) => List(Type.Integer(), max, o);
export const StrList = (max: number, o?: SchemaOptions) => List(Type.String(), max, o);
/** A JSON dict with these keys. */
export const Dict = <P extends TProperties>(props: P, o?: SchemaOptions) => Type.Object(props, o);
/** Any one of these JSON shapes (Zulip's check_union: `x is not an allowed_type`). */
export const OneOf = <S extends TSchema[]>(shapes: [...S], o?: SchemaOptions) => Type.Union(shapes, o);
/** Any JSON value; its shape is checked where it is used (a narrow, a setting's value). */
export const AnyJson = (o?: SchemaOptions) => Type.Unknown({ ...o, 'x-json': true });

export const Opt = <S extends TSchema>(s: S): TOptional<S> => Type.Optional(s) as TOptional<S>;
export function Default<S extends TSchema>(s: S, value: Static<S>): TDefaulted<S> {
  return Type.Optional({ ...s, default: value } as S) as TDefaulted<S>;
}

function withAliases(o: (SchemaOptions & { aliases?: string[] }) | undefined): SchemaOptions | undefined {
  if (!o?.aliases) return o;
  const { aliases, ...rest } = o;
  return { ...rest, [ALIASES]: aliases };
}
