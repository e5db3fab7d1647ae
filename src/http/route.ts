import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../rows.js';
import type { Params } from './params.js';
import type { ArgsOf } from '../schemas/params.js';
import { argsFactory, type ArgsFactory } from './args.js';
import { badRequest } from '../errors.js';

type AnyArgs = Readonly<Record<string, unknown>>;

export interface BaseRequest<A = AnyArgs> {
  ctx: AppContext;
  /** The parameters the route declares, decoded as the handler reads them (src/http/args.ts). */
  args: A;
  /** Every parameter as sent, undecoded: for an incoming webhook's integration-specific ones. */
  params: Params;
  path: Record<string, string>;
  req: FastifyRequest;
  reply: FastifyReply;
  realm: RealmRow;
}

export interface AuthedRequest<A = AnyArgs> extends BaseRequest<A> {
  user: UserRow;
}

/** An incoming webhook's request: its bot, and the body exactly as sent (the integration decodes it). */
export interface WebhookRequest<A = AnyArgs> extends BaseRequest<A> {
  bot: UserRow;
  raw: string;
  /** A form body's fields (urlencoded or multipart); empty for other bodies. */
  form: Record<string, string>;
}

type Body = Record<string, unknown>;

/** A whole success body already serialised (a cached answer), as text or UTF-8 bytes: sent as it is. */
export class PreSerialized {
  constructor(readonly json: string | Buffer) {}
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/**
 * What every route declares. `params`: its parameters (query string or body, Zulip's wire
 * rules), the one place they are named; `answer`: the success body beside `result` and
 * `msg`. Both feed the OpenAPI document (src/http/openapi.ts) and the tests.
 * `prefix` replaces /api/v1 for the few pages outside the API (a confirmation link's target).
 * `only`: the route answers at one of /api/v1 ('api') or /json ('web') alone, where Zulip's two
 * differ (POST /fetch_api_key: a username and password there, the session and a password here).
 * `streamsFiles`: the handler reads a multipart body's parts itself as they arrive
 * (uploads), instead of every part being collected into `params` first.
 */
interface Common<P extends TProperties> {
  method: Method;
  path: string;
  prefix?: string;
  only?: 'api' | 'web';
  summary?: string;
  params?: P;
  answer?: TSchema;
}

/**
 * auth 'user': basic auth (or the web app's session) required; 'none': public, the Host
 * picks the realm; 'webhook': an incoming-webhook bot's key (`api_key` or basic auth), the
 * body kept as sent, and `known` answers whether the path names something at all (else 404,
 * before any credential). `allowWebhookBot`: incoming-webhook bots may call this 'user'
 * route too (POST /messages). `requires`: Zulip's view decorators, checked before the
 * handler reads anything: 'admin' require_realm_admin (administrators and owners),
 * 'member' require_member_or_admin (no guests, no bots), 'human' human_users_only (no bots).
 */
export type Requirement = 'admin' | 'member' | 'human';

export type RouteDef<P extends TProperties> =
  | (Common<P> & { auth: 'user'; streamsFiles?: true; allowWebhookBot?: true; requires?: Requirement; handler(r: AuthedRequest<ArgsOf<P>>): Promise<Body | PreSerialized> })
  | (Common<P> & { auth: 'none'; streamsFiles?: true; handler(r: BaseRequest<ArgsOf<P>>): Promise<Body | PreSerialized> })
  | (Common<P> & { auth: 'webhook'; known: (path: Record<string, string>) => boolean; handler(r: WebhookRequest<ArgsOf<P>>): Promise<Body> });

/** A declared route as the app registers it: the declaration, with its parameters as one object schema and their decoder. */
export type Route = RouteDef<TProperties> & { schema: TObject; decodeArgs: ArgsFactory };

export function route<P extends TProperties = Record<never, never>>(def: RouteDef<P>): Route {
  const schema = Type.Object(def.params ?? {});
  return { ...def, schema, decodeArgs: argsFactory(schema) } as unknown as Route;
}

/** Integer path segment; Zulip's URL patterns only match digits, so others are 404s there. */
export function pathInt(r: BaseRequest<unknown>, name: string): number {
  const v = r.path[name] ?? '';
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`Invalid ${name.replace(/_/g, ' ')}`);
  return Number(v);
}

/** The answer of a route that answers nothing beside `result` and `msg`. */
export const NoAnswer = Type.Object({}, { description: 'Nothing beside result and msg' });
/** A batched action's answer (delete_topic, mark_all_as_read): `complete` from feature level 211. */
export const CompleteAnswer = Type.Object({
  complete: Type.Optional(Type.Boolean({ description: 'false: the time budget ran out first; repeating the request continues (feature level 211)' })),
});

/** A route's one effect, after which it answers nothing beside `result` and `msg`. */
export async function done(effect: Promise<unknown>): Promise<Record<string, never>> {
  await effect;
  return {};
}
