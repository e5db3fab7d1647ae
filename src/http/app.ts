import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { AppContext } from '../context.js';
import { ApiError, unknownIntegration, uploadTooLarge, botRequestsRefused } from '../errors.js';
import { renderError } from './render-error.js';
import { Params, parseQuery } from './params.js';
import { authenticate, authenticateWebhook, resolveRealm } from './auth.js';
import { routes } from './routes.js';
import { requireAdmin } from '../access/user.js';
import { requireMemberOrAdmin } from '../access/bot.js';
import { openApiDocument } from './openapi.js';
import { PreSerialized, type AuthedRequest, type BaseRequest, type Route, type WebhookRequest } from './route.js';
import { createServer } from './longpoll.js';
import fastifyCookie from '@fastify/cookie';
import { authenticateSession } from './session-auth.js';
import { noteVisit } from '../actions/soft-deactivation.js';
import { maybeSendAppPage, registerWebApp } from './static-app.js';
import { registerEmojiData } from './emoji-data.js';
import { chargeRequest, clientAddress, userBudgetKey, withHeaders } from './rate-limit.js';
import { MAX_BODY_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_PARTS, maxUploadBodyBytes } from './body-limits.js';
import { checkDeclaredLength, multipartFields } from './multipart.js';
import { lingerAfterAnswer } from './linger.js';
import { checkAnswer, checkingAnswers } from './answer-check.js';
import { undeclaredNames } from './args.js';
import { frameworkRefusal, onClientError, refusalBody } from './refusals.js';
import { registerTus } from './tus.js';
import { registerOpsRoutes } from './ops.js';

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
    // every new request is answered 503 there, in the API's shape.
    // The server's timeouts are set there: long polls are held up to 90 s by design.
    serverFactory: (handler) => createServer(ctx, handler, { isClosing: () => closing }),
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // A pino child per request was a measurable share of a small request; the request
    // id is added to the lines that need it instead.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreDuplicateSlashes: true, ignoreTrailingSlash: true, maxParamLength: 500, querystringParser: parseQuery },
    trustProxy: ctx.config.trustProxy,
    bodyLimit: MAX_BODY_BYTES,
    // Answered by createServer in the API's shape instead (Fastify's own body is not).
    return503OnClosing: false,
    clientErrorHandler: onClientError,
    // A malformed URL (bad percent-encoding) never reaches a route.
    frameworkErrors: (err, _req, reply) => {
      const r = frameworkRefusal(err);
      void (reply as FastifyReply).status(r.status).send(refusalBody(r));
    },
  });

  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  await app.register(formbody);
  await app.register(fastifyCookie);
  // Bodies of other types (webhook payloads in plain text, say) are kept as text.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const metrics = ctx.metrics;
  if (metrics) {
    // The route's declared pattern, never the URL: one series per route, whatever the ids in it.
    app.addHook('onResponse', (req, reply, done) => {
      metrics.request(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  registerOpsRoutes(app, ctx, () => closing);

  const logRequests = ctx.log.isLevelEnabled('info');
  if (logRequests) {
    app.addHook('onResponse', (req, reply, done) => {
      req.log.info({ reqId: req.id, method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      done();
    });
  }

  app.setErrorHandler((err: unknown, req, reply) => {
    const { status, body } = renderError(err, ctx.log, handlerStarted.has(req), String(req.id));
    if (err instanceof ApiError) for (const [k, v] of Object.entries(err.headers)) void reply.header(k, v);
    // A refusal before the body was read whole: the rest of it is not worth receiving
    // (a 24 MB upload without credentials), so the connection closes after the answer.
    if (!req.raw.complete) {
      void reply.header('connection', 'close');
      lingerAfterAnswer(req.raw);
    }
    void reply.status(status).send(body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (await maybeSendAppPage(ctx, req, reply)) return reply;
    return reply.status(404).send({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  });
  await registerWebApp(app, ctx);
  registerEmojiData(app);

  // Made once, on first request: the routes do not change while the server runs.
  let openApiJson: string | undefined;
  app.get(`${API_PREFIX}/openapi.json`, async (_req, reply) => sendJson(reply, (openApiJson ??= JSON.stringify(openApiDocument(routes, ctx.config.featureLevel)))));

  // Multipart is parsed in two scopes (the plugin applies to the scope it is registered in).
  // zulip-js sends every POST as multipart with plain fields, so every route takes those,
  // as a form body within the global limit; a file part there is refused at its headers.
  // Only the upload routes take files: their handlers authenticate first, then read the
  // parts as they arrive so that a file streams to storage and is never held in memory.
  await app.register(async (scope) => {
    await scope.register(multipart);
    scope.addHook('preValidation', async (req) => {
      if (req.isMultipart()) req.body = await multipartFields(req);
    });
    for (const route of routes) if (route.auth !== 'webhook' && !route.streamsFiles) registerBoth(scope, ctx, route);
  });
  await app.register(async (scope) => {
    const limit = maxUploadBodyBytes(ctx.config.maxFileUploadSizeMib);
    await scope.register(multipart, { throwFileSizeLimit: false, limits: { fields: MAX_UPLOAD_PARTS, parts: MAX_UPLOAD_PARTS, files: MAX_UPLOAD_FILES, fieldSize: 64 * 1024 } });
    // Zulip's message for a file past the limit, as a 413: the body is refused unread.
    const tooLarge = () => new ApiError('BAD_REQUEST', uploadTooLarge(ctx.config.maxFileUploadSizeMib).message, 413);
    scope.addHook('onRequest', async (req) => checkDeclaredLength(req, limit, tooLarge));
    for (const route of routes) if (route.auth !== 'webhook' && route.streamsFiles) registerBoth(scope, ctx, route);
  });
  // Resumable uploads (feature level 295): the tus protocol's own requests and answers.
  await registerTus(app, ctx);
  // Webhook payloads are whatever the third party sends, JSON often under a form's content
  // type: every body is kept as bytes here, and the integration decides how to read it.
  // Only under /api/v1: a third party never holds a browser session.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    for (const route of routes) if (route.auth === 'webhook') registerRoute(scope, ctx, route, false);
  });
  return app;
}

/**
 * Large answers (register's is hundreds of KB) go out as bytes. Given a string, Fastify
 * measures its UTF-8 length in one pass and Node encodes it in another; at 576 KB the
 * measuring alone took as long as serialising (bench `register`).
 */
const AS_BYTES_FROM = 16 * 1024;

function sendJson(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(typeof json === 'string' && json.length >= AS_BYTES_FROM ? Buffer.from(json) : json);
}

/** A form body's plain fields; files are not a webhook's business. */
async function formFields(contentType: string, raw: Buffer): Promise<Record<string, string>> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) out[k] = v;
  } else if (/^multipart\/form-data/i.test(contentType)) {
    try {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
      for (const [k, v] of form) if (typeof v === 'string') out[k] = v;
    } catch {
      // A malformed multipart body has no fields; the payload check answers for it.
    }
  }
  return out;
}

async function webhookRequest(ctx: AppContext, route: Extract<Route, { auth: 'webhook' }>, base: BaseRequest): Promise<WebhookRequest> {
  if (!route.known(base.path)) throw unknownIntegration();
  const req = base.req;
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const contentType = String(req.headers['content-type'] ?? '');
  const form = await formFields(contentType, raw);
  const params = Params.from(req.query, form);
  const args = route.decodeArgs(params) as { api_key?: string };
  const { bot, realm } = await authenticateWebhook(ctx, req.headers.host, args.api_key, req.headers.authorization);
  return { ...base, args, params, realm, bot, raw: raw.toString('utf8'), form };
}

/** An API route at /api/v1 and again at /json; a page outside the API (its own prefix) once. */
function registerBoth(app: FastifyInstance, ctx: AppContext, route: Route): void {
  if (route.only !== 'web') registerRoute(app, ctx, route, false);
  if (route.prefix === undefined && route.only !== 'api') registerRoute(app, ctx, route, true);
}

function registerRoute(app: FastifyInstance, ctx: AppContext, route: Route, web: boolean): void {
  app.route({
    method: route.method,
    url: (web ? JSON_PREFIX : (route.prefix ?? API_PREFIX)) + route.path,
    handler: async (req, reply) => {
      handlerStarted.add(req);
      const params = route.auth === 'webhook' ? Params.from({}) : paramsOf(req);
      const base: BaseRequest = {
        ctx, req, reply, params, args: route.decodeArgs(params), path: (req.params ?? {}) as Record<string, string>,
        realm: undefined as never,
      };
      let body: Record<string, unknown> | PreSerialized;
      if (route.auth === 'webhook') {
        body = await route.handler(await webhookRequest(ctx, route, base));
      } else if (route.auth === 'user') {
        const { user, realm } = web ? await authenticateSession(ctx, req) : await authenticateCharged(ctx, req, route.allowWebhookBot === true);
        // A soft-deactivated person's rows are made before their request reads any.
        const back = noteVisit(ctx, user);
        if (back) await back;
        // Zulip's api_by_user: every authenticated request, in one budget per user (and so
        // per API key), its state in X-RateLimit-* on every answer, refusals included.
        if (ctx.limiter.enabled) void reply.headers((await chargeRequest(ctx, 'api_by_user', userBudgetKey(user.id, route.method === 'GET' && route.path === '/events'))) ?? {});
        if (route.requires === 'admin') requireAdmin(user);
        else if (route.requires === 'member') requireMemberOrAdmin(user);
        else if (route.requires === 'human' && user.is_bot === 1) throw botRequestsRefused();
        const r: AuthedRequest = { ...base, user, realm };
        body = await route.handler(r);
      } else {
        // Zulip's api_by_ip, for the API's public endpoints (not the files and pages beside it).
        if (ctx.limiter.enabled && route.prefix === undefined) void reply.headers((await chargeRequest(ctx, 'api_by_ip', clientAddress(req.ip))) ?? {});
        base.realm = await resolveRealm(ctx, req.headers.host);
        body = await route.handler(base);
      }
      if (reply.sent) return reply;
      if (route.auth !== 'webhook') body = withIgnoredParameters(ctx, base.args, body);
      if (checkingAnswers) {
        // ignored_parameters_unsupported belongs to every success answer (level 167), declared once in openapi.ts.
        const { result: _r, msg: _m, ignored_parameters_unsupported: _i, ...answer } = (body instanceof PreSerialized ? JSON.parse(body.json.toString()) : body) as Record<string, unknown>;
        checkAnswer(route, answer);
      }
      return sendJson(reply, body instanceof PreSerialized ? body.json : JSON.stringify({ result: 'success', msg: '', ...body }));
    },
  });
}

/**
 * Zulip 7.0 (level 167): a success answer names the parameters the request carried that the
 * route does not take, so a client learns that an option it sent had no effect. A route that
 * already reports them (PATCH /settings, PATCH /realm) keeps its own list. Incoming webhooks
 * are left out: their integration-specific fields are read beside the declaration.
 */
function withIgnoredParameters(ctx: AppContext, args: object, body: Record<string, unknown> | PreSerialized): Record<string, unknown> | PreSerialized {
  if (ctx.config.featureLevel < 167) return body;
  const ignored = undeclaredNames(args);
  if (ignored.length === 0) return body;
  const answer = body instanceof PreSerialized ? (JSON.parse(body.json.toString()) as Record<string, unknown>) : body;
  if ('ignored_parameters_unsupported' in answer) return body;
  return { ...answer, ignored_parameters_unsupported: ignored };
}

/**
 * Authentication, with a failed attempt counted as an unauthenticated request from its
 * address (api_by_ip): guessing keys costs a budget like any anonymous call.
 */
async function authenticateCharged(ctx: AppContext, req: FastifyRequest, allowWebhookBot: boolean): Promise<Awaited<ReturnType<typeof authenticate>>> {
  try {
    return await authenticate(ctx, req.headers.host, req.headers.authorization, allowWebhookBot);
  } catch (err) {
    if (!ctx.limiter.enabled || !(err instanceof ApiError) || err.httpStatus !== 401) throw err;
    const headers = await chargeRequest(ctx, 'api_by_ip', clientAddress(req.ip));
    throw headers ? withHeaders(err, headers) : err;
  }
}
