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

type Body = Record<string, unknown>;

/** A whole success body already serialised (a cached answer): sent as it is. */
export class PreSerialized {
  constructor(readonly json: string) {}
}

/**
 * auth 'user': basic auth required; 'none': public, the Host picks the realm. `prefix`
 * replaces /api/v1 for the few pages outside the API (a confirmation link's target).
 * `streamsFiles`: the handler reads a multipart body's parts itself as they arrive
 * (uploads), instead of every part being collected into `params` first.
 */
export type Route =
  | { method: Method; path: string; prefix?: string; streamsFiles?: true; auth: 'user'; handler: (r: AuthedRequest) => Promise<Body | PreSerialized> }
  | { method: Method; path: string; prefix?: string; streamsFiles?: true; auth: 'none'; handler: (r: BaseRequest) => Promise<Body | PreSerialized> };

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** Integer path segment; Zulip's URL patterns only match digits, so others are 404s there. */
export function pathInt(r: BaseRequest, name: string): number {
  const v = r.path[name] ?? '';
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`Invalid ${name.replace(/_/g, ' ')}`);
  return Number(v);
}
