import http from 'node:http';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { authenticate } from './auth.js';
import { Params, parseQuery } from './params.js';
import { queuesOf } from '../events/manager.js';
import { eventsAnswer } from '../presenters/events.js';
import type { UserRow } from '../store/rows.js';

/**
 * GET /events, the one request every connected client repeats for every event it gets.
 * Shared by the Fastify route and the direct path below.
 */
export async function serveEvents(ctx: AppContext, user: UserRow, params: Params, onClose: (cb: () => void) => void): Promise<string> {
  const manager = queuesOf(ctx);
  const queue = manager.get(params.str('queue_id'), user.id);
  const events = await manager.poll(queue, params.optInt('last_event_id') ?? -1, params.bool('dont_block', false), onClose);
  return eventsAnswer(events, queue.id);
}

const EVENTS_PATHS = new Set(['/api/v1/events', '/api/v1/events/']);

/**
 * The HTTP server, with GET /events answered straight from Node's request callback and
 * everything else handed to Fastify. Zulip serves this request from Tornado rather than
 * Django for the same reason: at ten thousand parked polls, each answered and renewed
 * once a second, Fastify's per-request pipeline (routing, hooks, reply) was a large share
 * of the server's time. Same authentication, parameters, errors and answer as the route.
 */
export function createServer(ctx: AppContext, fastify: http.RequestListener, opts: { isClosing: () => boolean }): http.Server {
  const logRequests = ctx.log.isLevelEnabled('info');
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if (req.method !== 'GET' || !EVENTS_PATHS.has(q < 0 ? url : url.slice(0, q)) || opts.isClosing()) {
      fastify(req, res);
      return;
    }
    const started = logRequests ? performance.now() : 0;
    void answerPoll(ctx, req, res, q < 0 ? '' : url.slice(q + 1)).then((status) => {
      if (logRequests) ctx.log.info({ method: 'GET', url, status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request');
    });
  });
  // Long polls are held up to 90 s by design; a client's next poll follows within seconds.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 95_000;
  return server;
}

async function answerPoll(ctx: AppContext, req: http.IncomingMessage, res: http.ServerResponse, query: string): Promise<number> {
  let status = 200;
  let body: string;
  try {
    const { user } = await authenticate(ctx, req.headers.host, req.headers.authorization);
    body = await serveEvents(ctx, user, queryParams(query), (cb) => onceClosed(res, cb));
  } catch (err) {
    if (err instanceof ApiError) {
      status = err.httpStatus;
      body = JSON.stringify(err.toJSON());
    } else {
      ctx.log.error({ err }, 'unhandled error');
      status = 500;
      body = JSON.stringify({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    }
  }
  if (res.destroyed) return status;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return status;
}

/** `cb` when the client goes away; at once if it already has (during a slow authentication, say). */
export function onceClosed(res: http.ServerResponse, cb: () => void): void {
  if (res.destroyed) cb();
  else res.once('close', cb);
}

function queryParams(query: string): Params {
  return Params.from(parseQuery(query), undefined);
}
