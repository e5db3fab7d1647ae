import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../rows.js';
import type { Params } from './params.js';
import { badRequest } from '../errors.js';

export interface BaseRequest {
  ctx: AppContext;
  params: Params;
  path: Record<string, string>;
  req: FastifyRequest;
  reply: FastifyReply;
  realm: RealmRow;
}

export interface AuthedRequest extends BaseRequest {
  user: UserRow;
}

/** An incoming webhook's request: its bot, and the body exactly as sent (the integration decodes it). */
export interface WebhookRequest extends BaseRequest {
  bot: UserRow;
  raw: string;
  /** A form body's fields (urlencoded or multipart); empty for other bodies. */
  form: Record<string, string>;
}

type Body = Record<string, unknown>;

/** A whole success body already serialised (a cached answer): sent as it is. */
export class PreSerialized {
  constructor(readonly json: string) {}
}

/**
 * auth 'user': basic auth required; 'none': public, the Host picks the realm; 'webhook': an
 * incoming-webhook bot's key (`api_key` or basic auth), the body kept as sent, and `known`
 * answers whether the path names something at all (else 404, before any credential).
 * `allowWebhookBot`: incoming-webhook bots may call this 'user' route too (POST /messages). `prefix`
 * replaces /api/v1 for the few pages outside the API (a confirmation link's target).
 * `streamsFiles`: the handler reads a multipart body's parts itself as they arrive
 * (uploads), instead of every part being collected into `params` first.
 */
export type Route =
  | { method: Method; path: string; prefix?: string; streamsFiles?: true; auth: 'user'; allowWebhookBot?: true; handler: (r: AuthedRequest) => Promise<Body | PreSerialized> }
  | { method: Method; path: string; prefix?: string; streamsFiles?: true; auth: 'none'; handler: (r: BaseRequest) => Promise<Body | PreSerialized> }
  | { method: Method; path: string; prefix?: string; auth: 'webhook'; known: (path: Record<string, string>) => boolean; handler: (r: WebhookRequest) => Promise<Body> };

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** Integer path segment; Zulip's URL patterns only match digits, so others are 404s there. */
export function pathInt(r: BaseRequest, name: string): number {
  const v = r.path[name] ?? '';
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`Invalid ${name.replace(/_/g, ' ')}`);
  return Number(v);
}
