import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { UserRow } from '../rows.js';
import { authenticate } from './auth.js';
import { authenticateSession, SESSION_COOKIE } from './session-auth.js';
import { maxUploadBodyBytes } from './body-limits.js';
import { ownTusUpload } from '../reads/tus-uploads.js';
import { appendTusChunk, createTusUpload, deleteTusUpload } from '../actions/tus-upload.js';

/**
 * /api/v1/tus (feature level 295): the tus 1.0.0 resumable upload protocol (core, creation
 * and termination), where Zulip proxies to tusd and judges through its hooks
 * (zerver/views/tusd.py). The answers are tus's, not the API's: status codes and Upload-*
 * headers, and Zulip's hook bodies `{"message": ...}` for refusals. The finishing PATCH
 * answers 200 with `{"url", "filename"}`, as Zulip's pre-finish hook makes tusd answer.
 * At every feature level (a new endpoint), as Zulip's is.
 */
const TUS_VERSION = '1.0.0';
// Spelled out: app.ts (API_PREFIX) imports this module.
const TUS_PATH = '/api/v1/tus';
const OCTET_STREAM = 'application/offset+octet-stream';
const MIB = 1024 * 1024;

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.status(status).header('tus-resumable', TUS_VERSION).type('application/json').send(JSON.stringify({ message }));
}

/** Zulip's authenticate_user: the API key in the Authorization header, else the browser session; null when neither holds. */
async function uploader(ctx: AppContext, req: FastifyRequest): Promise<UserRow | null> {
  try {
    if (req.headers.authorization !== undefined) return (await authenticate(ctx, req.headers.host, req.headers.authorization)).user;
  } catch {
    /* Zulip falls back to the session */
  }
  try {
    if (req.cookies[SESSION_COOKIE] !== undefined) return (await authenticateSession(ctx, req)).user;
  } catch {
    /* no session either */
  }
  return null;
}

/** The value of each Upload-Metadata pair (`key base64,key base64`); a key alone has ''. */
export function parseUploadMetadata(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) out[key] = value ? Buffer.from(value, 'base64').toString('utf8') : '';
  }
  return out;
}

const intHeader = (v: string | string[] | undefined): number | undefined => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : undefined);

export async function registerTus(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const maxBytes = ctx.config.maxFileUploadSizeMib * MIB;
  await app.register(async (scope) => {
    // A PATCH's body is the upload's bytes, kept whole (at most the upload limit).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxUploadBodyBytes(ctx.config.maxFileUploadSizeMib) }, (_req, body, done) => done(null, body));
    // Every tus request but OPTIONS names the protocol version it speaks (tus: 412 otherwise).
    scope.addHook('onRequest', async (req, reply) => {
      if (req.method !== 'OPTIONS' && req.headers['tus-resumable'] !== TUS_VERSION) {
        return reply.status(412).header('tus-version', TUS_VERSION).send();
      }
      return undefined;
    });
    const withUser = async (req: FastifyRequest, reply: FastifyReply): Promise<UserRow | null> => {
      const user = await uploader(ctx, req);
      if (!user) refuse(reply, 401, 'Unauthenticated upload');
      return user;
    };

    scope.options(TUS_PATH, async (_req, reply) => reply.status(204).headers({
      'tus-resumable': TUS_VERSION, 'tus-version': TUS_VERSION, 'tus-extension': 'creation,termination', 'tus-max-size': String(maxBytes),
    }).send());

    scope.post(TUS_PATH, async (req, reply) => {
      const user = await withUser(req, reply);
      if (!user) return reply;
      const length = intHeader(req.headers['upload-length']);
      if (length === undefined) {
        // Zulip's pre-create hook refuses deferred lengths; a missing or garbled one is tusd's 400.
        return req.headers['upload-defer-length'] === '1' ? refuse(reply, 411, 'SizeIsDeferred is not supported') : refuse(reply, 400, 'missing or invalid Upload-Length header');
      }
      if (length > maxBytes) return refuse(reply, 413, `Uploaded file is larger than the allowed limit of ${ctx.config.maxFileUploadSizeMib} MiB`);
      const meta = parseUploadMetadata(req.headers['upload-metadata'] as string | undefined);
      const upload = await createTusUpload(ctx, user, length, meta);
      void reply.status(201).headers({ 'tus-resumable': TUS_VERSION, location: `${TUS_PATH}/${upload.id}`, 'upload-offset': '0' });
      if (length === 0) {
        // Nothing to send: finished at once, as tusd does.
        const done = await appendTusChunk(ctx, user, upload, 0, Buffer.alloc(0));
        if (done.kind === 'done') return reply.type('application/json').send(JSON.stringify({ url: done.url, filename: done.filename }));
      }
      return reply.send();
    });

    scope.head(`${TUS_PATH}/:id`, async (req, reply) => {
      const user = await withUser(req, reply);
      if (!user) return reply;
      const upload = await ownTusUpload(ctx.store.db, (req.params as { id: string }).id, user.id);
      if (!upload) return reply.status(404).header('tus-resumable', TUS_VERSION).send();
      return reply.status(200).headers({
        'tus-resumable': TUS_VERSION, 'upload-offset': String(upload.received), 'upload-length': String(upload.length), 'cache-control': 'no-store',
      }).send();
    });

    scope.patch(`${TUS_PATH}/:id`, async (req, reply) => {
      const user = await withUser(req, reply);
      if (!user) return reply;
      const upload = await ownTusUpload(ctx.store.db, (req.params as { id: string }).id, user.id);
      if (!upload) return refuse(reply, 404, 'upload not found');
      if (req.headers['content-type'] !== OCTET_STREAM) return refuse(reply, 415, `missing or invalid Content-Type header`);
      const offset = intHeader(req.headers['upload-offset']);
      if (offset === undefined) return refuse(reply, 400, 'missing or invalid Upload-Offset header');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (offset === upload.received && offset + body.length > upload.length) return refuse(reply, 413, 'upload\'s size exceeded');
      const result = await appendTusChunk(ctx, user, upload, offset, body);
      if (result.kind === 'conflict') return refuse(reply, 409, 'mismatched offset');
      if (result.kind === 'partial') return reply.status(204).headers({ 'tus-resumable': TUS_VERSION, 'upload-offset': String(result.received) }).send();
      return reply.status(200).headers({ 'tus-resumable': TUS_VERSION, 'upload-offset': String(upload.length) })
        .type('application/json').send(JSON.stringify({ url: result.url, filename: result.filename }));
    });

    scope.delete(`${TUS_PATH}/:id`, async (req, reply) => {
      const user = await withUser(req, reply);
      if (!user) return reply;
      const upload = await ownTusUpload(ctx.store.db, (req.params as { id: string }).id, user.id);
      if (!upload) return refuse(reply, 404, 'upload not found');
      await deleteTusUpload(ctx, upload);
      return reply.status(204).header('tus-resumable', TUS_VERSION).send();
    });
  });
}
