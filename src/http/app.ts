import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { Params, parseQuery } from './params.js';
import { authenticate, resolveRealm } from './auth.js';
import { routes } from './routes.js';
import { PreSerialized, type AuthedRequest, type BaseRequest, type Route } from './route.js';
import { createServer } from './longpoll.js';

export const API_PREFIX = '/api/v1';

/** Requests whose body was fully parsed and whose handler began. */
const handlerStarted = new WeakSet<FastifyRequest>();

function paramsOf(req: FastifyRequest): Params {
  // Query string for every method, then the body (form or multipart) on top.
  return Params.from(req.query, req.method === 'GET' ? undefined : req.body);
}

export async function buildHttp(ctx: AppContext): Promise<FastifyInstance> {
  let closing = false;
  const app = Fastify({
    // GET /events is answered before Fastify sees it (src/http/longpoll.ts); once closing,
    // Fastify takes it too and answers 503.
    // The server's timeouts are set there: long polls are held up to 90 s by design.
    serverFactory: (handler) => createServer(ctx, handler, { isClosing: () => closing }),
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // A pino child per request was a measurable share of a small request; the request
    // id is added to the lines that need it instead.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 500, querystringParser: parseQuery },
    bodyLimit: 8 * 1024 * 1024,
    return503OnClosing: true,
  });

  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  await app.register(formbody);
  await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: 25 * 1024 * 1024, fields: 1000 } });
  // Bodies of other types (webhook payloads in plain text, say) are kept as text.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const logRequests = ctx.log.isLevelEnabled('info');
  if (logRequests) {
    app.addHook('onResponse', (req, reply, done) => {
      req.log.info({ reqId: req.id, method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      done();
    });
  }

  app.setErrorHandler((err: unknown, req, reply) => {
    if (err instanceof ApiError) {
      void reply.status(err.httpStatus).send(err.toJSON());
      return;
    }
    const e = err as { statusCode?: number; message?: string; code?: string };
    if (!handlerStarted.has(req)) {
      // Failed while reading the body (a truncated multipart stream, say): the client's fault.
      const status = e.statusCode === 413 ? 413 : 400;
      void reply.status(status).send({ result: 'error', msg: e.message || 'Malformed request body', code: 'BAD_REQUEST' });
      return;
    }
    if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
      // Fastify's own parse errors (bad JSON body, too large, bad multipart).
      void reply.status(e.statusCode === 413 ? 413 : 400).send({ result: 'error', msg: e.message ?? 'Bad request', code: 'BAD_REQUEST' });
      return;
    }
    if (e.code === '22003') {
      // A number past a column's range (PostgreSQL checks; SQLite just finds nothing).
      void reply.status(400).send({ result: 'error', msg: 'Number out of range', code: 'BAD_REQUEST' });
      return;
    }
    if (e.code === '22021' || e.code === '22P05') {
      // PostgreSQL refuses NUL and other unencodable characters in text. SQLite would
      // have stored them; either way the input was the client's mistake.
      void reply.status(400).send({ result: 'error', msg: 'Invalid characters in request', code: 'BAD_REQUEST' });
      return;
    }
    req.log.error({ err, reqId: req.id }, 'unhandled error');
    void reply.status(500).send({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  });

  app.setNotFoundHandler((_req, reply) => {
    void reply.status(404).send({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  });

  for (const route of routes) registerRoute(app, ctx, route);
  return app;
}

/**
 * Large answers (register's is hundreds of KB) go out as bytes. Given a string, Fastify
 * measures its UTF-8 length in one pass and Node encodes it in another; at 576 KB the
 * measuring alone took as long as serialising (bench `register`).
 */
const AS_BYTES_FROM = 16 * 1024;

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json.length >= AS_BYTES_FROM ? Buffer.from(json) : json);
}

function registerRoute(app: FastifyInstance, ctx: AppContext, route: Route): void {
  app.route({
    method: route.method,
    url: API_PREFIX + route.path,
    handler: async (req, reply) => {
      handlerStarted.add(req);
      const base: BaseRequest = {
        ctx, req, reply, params: paramsOf(req), path: (req.params ?? {}) as Record<string, string>,
        realm: undefined as never,
      };
      let body: Record<string, unknown> | PreSerialized;
      if (route.auth === 'user') {
        const { user, realm } = await authenticate(ctx, req.headers.host, req.headers.authorization);
        const r: AuthedRequest = { ...base, user, realm };
        body = await route.handler(r);
      } else {
        base.realm = await resolveRealm(ctx, req.headers.host);
        body = await route.handler(base);
      }
      if (reply.sent) return reply;
      return sendJson(reply, body instanceof PreSerialized ? body.json : JSON.stringify({ result: 'success', msg: '', ...body }));
    },
  });
}
