import http from 'node:http';
import type { Socket } from 'node:net';
import type { AppContext } from '../context.js';
import { renderError } from './render-error.js';
import { authenticate, refuseWebhookBot, verifiedLogin } from './auth.js';
import { authenticateSession, cookieOf, SESSION_COOKIE } from './session-auth.js';
import { noteVisit } from '../actions/soft-deactivation.js';
import { chargeRequest, userBudgetKey } from './rate-limit.js';
import { ApiError } from '../errors.js';
import { SHUTTING_DOWN, refusalBody } from './refusals.js';
import { HEALTH_PATH, READY_PATH } from './ops.js';
import { Params, parseQuery } from './params.js';
import { argsFactory } from './args.js';
import { Bool, Default, Int, Opt, Str, Type, type ArgsOf } from '../schemas/params.js';
import { queuesOf } from '../events/manager.js';
import { eventsAnswer } from '../presenters/events.js';
import type { UserRow } from '../rows.js';
import type { EventQueue, QueuedEvent } from '../events/queue.js';

interface Taken { queue: EventQueue; events: QueuedEvent[] | undefined }

/**
 * The queue a GET /events names, and its events now (undefined: the poll should park).
 * A promise only when a cluster node must first rebuild a queue another node held.
 */
/** GET /events' parameters, declared here for its route and for this path, which serves the same request. */
export const EVENTS_PARAMS = {
  queue_id: Str(),
  last_event_id: Opt(Int({ description: 'The last event the client has; -1 or absent for none' })),
  dont_block: Default(Bool({ description: 'Answer at once, even with no events' }), false),
};
const decodeEventsArgs = argsFactory(Type.Object(EVENTS_PARAMS)) as (raw: Params) => ArgsOf<typeof EVENTS_PARAMS>;

function takePoll(ctx: AppContext, user: UserRow, args: ArgsOf<typeof EVENTS_PARAMS>): Taken | Promise<Taken> {
  const manager = queuesOf(ctx);
  const queueId = args.queue_id;
  const lastEventId = args.last_event_id ?? -1;
  const dontBlock = args.dont_block;
  const found = manager.find(queueId, user.id);
  const take = (queue: EventQueue): Taken => ({ queue, events: manager.take(queue, lastEventId, dontBlock) });
  return found instanceof Promise ? found.then(take) : take(found);
}

/** GET /events as one promise, for the Fastify route (inject(), and requests while closing). */
export async function serveEvents(ctx: AppContext, user: UserRow, args: ArgsOf<typeof EVENTS_PARAMS>, onClose: (cb: () => void) => void): Promise<string> {
  const { queue, events } = await takePoll(ctx, user, args);
  if (events) return eventsAnswer(events, queue.id);
  const manager = queuesOf(ctx);
  return new Promise<string>((resolve) => {
    const answer = (ready: QueuedEvent[]) => resolve(eventsAnswer(ready, queue.id));
    manager.park(queue, answer);
    onClose(() => manager.unpark(queue, answer));
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';
const EVENTS_PATHS = new Set(['/api/v1/events', '/api/v1/events/']);
/** The polls' series in the request metrics: the routes' patterns, as Fastify would report them. */
const EVENTS_ROUTE = '/api/v1/events';
const WEB_EVENTS_ROUTE = '/json/events';

/** Health probes are answered while the server stops: /ready then says so, and /health that the process still lives. */
function isProbe(url: string, q: number): boolean {
  const path = q < 0 ? url : url.slice(0, q);
  return path === HEALTH_PATH || path === READY_PATH;
}
/** The web app's polls (session cookie, as every /json route): the same fast path. */
const WEB_EVENTS_PATHS = new Set(['/json/events', '/json/events/']);

/**
 * The HTTP server, with GET /events answered straight from Node's request callback and
 * everything else handed to Fastify. Zulip serves this request from Tornado rather than
 * Django for the same reason: at ten thousand parked polls, each answered and renewed
 * once a second, Fastify's per-request pipeline (routing, hooks, reply) was a large share
 * of the server's time. Same authentication, parameters, errors and answer as the route.
 */
export function createServer(ctx: AppContext, fastify: http.RequestListener, opts: { isClosing: () => boolean }): http.Server {
  const logRequests = ctx.log.isLevelEnabled('info');
  const metrics = ctx.metrics;
  // One listener per connection, not one per poll: a keep-alive connection carries a poll
  // a second, and the socket outlives them all.
  const onSocketClose = function (this: MarkedSocket): void {
    const q = this[PARKED_QUEUE];
    const answer = this[PARKED_ANSWER];
    if (q && answer) queuesOf(ctx).unpark(q, answer);
    this[PARKED_QUEUE] = this[PARKED_ANSWER] = undefined;
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if (opts.isClosing() && !isProbe(url, q)) {
      // Shutting down: a new request belongs to another node (or to this one once restarted).
      req.resume();
      res.writeHead(SHUTTING_DOWN.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify(refusalBody(SHUTTING_DOWN)));
      return;
    }
    const path = q < 0 ? url : url.slice(0, q);
    const web = WEB_EVENTS_PATHS.has(path);
    if (req.method !== 'GET' || (!web && !EVENTS_PATHS.has(path))) {
      fastify(req, res);
      return;
    }
    const socket = req.socket as MarkedSocket;
    if (!socket[HOOKED]) {
      socket[HOOKED] = true;
      socket.once('close', onSocketClose);
    }
    const started = logRequests || metrics ? performance.now() : 0;
    const reply = (status: number, body: string, headers?: Record<string, string>): void => {
      if (!res.destroyed) {
        // Encoded once, sent as bytes; the headers as a list, the same bytes on the wire as
        // the object Fastify's routes give (one message to 10,000 polls: 10,000 of these in one turn).
        const bytes = Buffer.from(body);
        if (headers) res.writeHead(status, { ...headers, 'content-type': JSON_TYPE, 'content-length': bytes.length });
        else res.writeHead(status, ['content-type', JSON_TYPE, 'content-length', String(bytes.length)]);
        res.end(bytes);
      }
      if (metrics) metrics.request('GET', web ? WEB_EVENTS_ROUTE : EVENTS_ROUTE, status, (performance.now() - started) / 1000);
      if (logRequests) ctx.log.info({ method: 'GET', url, status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request');
    };
    const query = q < 0 ? '' : url.slice(q + 1);
    if (web) answerWebPoll(ctx, req, socket, query, reply);
    else answerPoll(ctx, req, socket, query, reply, () => fastify(req, res));
  });
  // Long polls are held up to 90 s by design; a client's next poll follows within seconds.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 95_000;
  return server;
}

const HOOKED = Symbol('close hooked');
const PARKED_QUEUE = Symbol('parked queue');
const PARKED_ANSWER = Symbol('parked answer');
type MarkedSocket = Socket & {
  [HOOKED]?: boolean;
  [PARKED_QUEUE]?: EventQueue | undefined;
  [PARKED_ANSWER]?: ((events: QueuedEvent[]) => void) | undefined;
};

/**
 * Answers at once when there is something to say; otherwise parks the poll and returns,
 * so that nothing but the queue's answer callback and the request itself stays alive
 * while it waits. A login verified before is checked without a promise (most polls).
 */
function answerPoll(ctx: AppContext, req: http.IncomingMessage, socket: MarkedSocket, query: string, reply: Reply, fallback: () => void): void {
  const known = verifiedLogin(ctx, req.headers.host, req.headers.authorization);
  if (known) {
    try {
      refuseWebhookBot(known.user);
    } catch (err) {
      replyError(ctx, err, reply);
      return;
    }
    chargedPoll(ctx, known.user, socket, query, reply);
    return;
  }
  authenticate(ctx, req.headers.host, req.headers.authorization).then(
    ({ user }) => chargedPoll(ctx, user, socket, query, reply),
    // A failed login goes to the Fastify route, which answers it like any other: counted
    // against the client's address as Fastify finds it (behind a trusted proxy too).
    (err: unknown) => (ctx.limiter.enabled ? fallback() : replyError(ctx, err, reply)),
  ).catch((err: unknown) => ctx.log.error({ err }, 'unhandled error'));
}

/**
 * A poll of the web app: its session cookie (and the CSRF header for the unsafe methods,
 * which a GET is not, as on every /json route) checked as session-auth.ts checks it for
 * Fastify's /json routes; a refusal is answered here, uncharged, as those routes answer it.
 */
function answerWebPoll(ctx: AppContext, req: http.IncomingMessage, socket: MarkedSocket, query: string, reply: Reply): void {
  const session = { method: req.method, headers: req.headers, cookies: { [SESSION_COOKIE]: cookieOf(req.headers.cookie, SESSION_COOKIE) } };
  authenticateSession(ctx, session).then(
    ({ user }) => chargedPoll(ctx, user, socket, query, reply),
    (err: unknown) => replyError(ctx, err, reply),
  ).catch((err: unknown) => ctx.log.error({ err }, 'unhandled error'));
}

type Reply = (status: number, body: string, headers?: Record<string, string>) => void;

/** The poll counted in its user's budget for polls (userBudgetKey), its state in X-RateLimit-*. */
function chargedPoll(ctx: AppContext, user: UserRow, socket: MarkedSocket, query: string, reply: Reply): void {
  const back = noteVisit(ctx, user);
  if (back) {
    back.then(() => chargedPoll(ctx, { ...user, long_term_idle: 0 }, socket, query, reply), (err: unknown) => replyError(ctx, err, reply));
    return;
  }
  if (!ctx.limiter.enabled) {
    servePoll(ctx, user, socket, query, reply);
    return;
  }
  let charged: ReturnType<typeof chargeRequest>;
  try {
    charged = chargeRequest(ctx, 'api_by_user', userBudgetKey(user.id, true));
  } catch (err) {
    replyError(ctx, err, reply);
    return;
  }
  const serve = (headers: Record<string, string> | undefined): void =>
    servePoll(ctx, user, socket, query, headers ? (status, body) => reply(status, body, headers) : reply);
  if (charged instanceof Promise) charged.then(serve, (err: unknown) => replyError(ctx, err, reply));
  else serve(charged);
}

function servePoll(ctx: AppContext, user: UserRow, socket: MarkedSocket, query: string, reply: Reply): void {
  let taken: Taken | Promise<Taken>;
  try {
    taken = takePoll(ctx, user, decodeEventsArgs(new Params(parseQuery(query))));
  } catch (err) {
    replyError(ctx, err, reply);
    return;
  }
  if (taken instanceof Promise) taken.then((t) => answerTaken(ctx, socket, t, reply), (err: unknown) => replyError(ctx, err, reply));
  else answerTaken(ctx, socket, taken, reply);
}

function answerTaken(ctx: AppContext, socket: MarkedSocket, { queue, events }: Taken, reply: Reply): void {
  if (events) {
    reply(200, eventsAnswer(events, queue.id));
    return;
  }
  // The client left while we authenticated: nothing to wait for.
  if (socket.destroyed) return;
  const q = queue;
  const answer = (ready: QueuedEvent[]): void => {
    socket[PARKED_QUEUE] = socket[PARKED_ANSWER] = undefined;
    reply(200, eventsAnswer(ready, q.id));
  };
  queuesOf(ctx).park(q, answer);
  socket[PARKED_QUEUE] = q;
  socket[PARKED_ANSWER] = answer;
}

function replyError(ctx: AppContext, err: unknown, reply: Reply): void {
  const { status, body } = renderError(err, ctx.log, true);
  reply(status, JSON.stringify(body), err instanceof ApiError ? err.headers : undefined);
}

/** `cb` when the client goes away; at once if it already has (during a slow authentication, say). */
export function onceClosed(res: http.ServerResponse, cb: () => void): void {
  if (res.destroyed) cb();
  else res.once('close', cb);
}
