import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { AppContext } from '../context.js';
import { renderError } from './render-error.js';
import { Params, parseQuery } from './params.js';
import { authenticate, resolveRealm } from './auth.js';
import { routes } from './routes.js';
import { PreSerialized, type AuthedRequest, type BaseRequest, type Route } from './route.js';
import { createServer } from './longpoll.js';
import fastifyCookie from '@fastify/cookie';
import { authenticateSession } from './session-auth.js';
import { maybeSendAppPage, registerWebApp } from './static-app.js';

export const API_PREFIX = '/api/v1';
/** The same routes for the web app, authenticated by its session cookie and CSRF header (session-auth.ts). */
export const JSON_PREFIX = '/json';

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
  await app.register(fastifyCookie);
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
    const { status, body } = renderError(err, ctx.log, handlerStarted.has(req), String(req.id));
    void reply.status(status).send(body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (await maybeSendAppPage(ctx, req, reply)) return reply;
    return reply.status(404).send({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  });
  await registerWebApp(app, ctx);

  // Multipart is parsed in two scopes (the plugin applies to the scope it is registered in).
  // zulip-js sends every POST as multipart, so ordinary routes collect all parts into
  // params; upload routes read the parts themselves as they arrive, so that a file streams
  // to storage and is never held in memory.
  await app.register(async (scope) => {
    await scope.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: 25 * 1024 * 1024, fields: 1000 } });
    for (const route of routes) if (!route.streamsFiles) registerBoth(scope, ctx, route);
  });
  await app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: false, limits: { fields: 1000, parts: 1000 } });
    for (const route of routes) if (route.streamsFiles) registerBoth(scope, ctx, route);
  });
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

/** An API route at /api/v1 and again at /json; a page outside the API (its own prefix) once. */
function registerBoth(app: FastifyInstance, ctx: AppContext, route: Route): void {
  registerRoute(app, ctx, route, false);
  if (route.prefix === undefined) registerRoute(app, ctx, route, true);
}

function registerRoute(app: FastifyInstance, ctx: AppContext, route: Route, web: boolean): void {
  app.route({
    method: route.method,
    url: (web ? JSON_PREFIX : (route.prefix ?? API_PREFIX)) + route.path,
    handler: async (req, reply) => {
      handlerStarted.add(req);
      const base: BaseRequest = {
        ctx, req, reply, params: paramsOf(req), path: (req.params ?? {}) as Record<string, string>,
        realm: undefined as never,
      };
      let body: Record<string, unknown> | PreSerialized;
      if (route.auth === 'user') {
        const { user, realm } = web ? await authenticateSession(ctx, req) : await authenticate(ctx, req.headers.host, req.headers.authorization);
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
