import type { FastifyRequest } from 'fastify';
import { done, NoAnswer, pathInt, route, type BaseRequest, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import type { UserRow } from '../../rows.js';
import { authenticate } from '../auth.js';
import { authenticateSession, SESSION_COOKIE } from '../session-auth.js';
import { uploadFile, deleteAttachment, type IncomingFile } from '../../actions/attachment-upload.js';
import { readUpload, userAttachments } from '../../reads/attachments.js';
import { contentDisposition, servedInline } from '../../lib/uploads.js';
import { notLoggedIn } from '../../errors.js';
import { WireAttachment } from '../../schemas/wire.js';

const MIB = 1024 * 1024;

/** The file parts of a multipart body, one at a time as they arrive; each stops at `maxBytes` (then `truncated`). */
export async function* filesOf(req: FastifyRequest, maxBytes: number): AsyncIterable<IncomingFile> {
  if (!req.isMultipart()) return;
  // The parser cuts a part at the limit and marks it truncated only when more bytes followed:
  // exactly the limit is allowed, as Zulip's `<`.
  for await (const part of req.parts({ limits: { fileSize: maxBytes } })) {
    if (part.type !== 'file') continue;
    yield { filename: part.filename, contentType: part.mimetype, stream: part.file, truncated: () => part.file.truncated };
  }
}

/** Zulip's 404 and 403 pages for a file (HTML, as a browser following a link sees them). */
function page(r: BaseRequest<unknown>, status: number, text: string): Record<string, never> {
  void r.reply.status(status).type('text/html; charset=utf-8').send(`<p>${text}</p>`);
  return {};
}

async function serveUpload(r: BaseRequest<unknown>, user: UserRow): Promise<Record<string, never>> {
  const pathId = `${r.path.realm_id ?? ''}/${r.path['*'] ?? ''}`;
  const found = await readUpload(r.ctx, user, pathId);
  if (found.kind === 'missing') return page(r, 404, 'File not found.');
  if (found.kind === 'forbidden') return page(r, 403, 'You are not authorized to view this file.');
  const { attachment: a } = found;
  const inline = servedInline(a.content_type);
  // Awaited: the reply settles once the stream has been written, and the route then knows it was sent.
  await r.reply
    .header('content-type', a.content_type)
    .header('content-length', String(a.size))
    .header('content-disposition', contentDisposition(inline, a.file_name))
    // What a user may see can change (a message moves or is deleted): no shared caches.
    .header('cache-control', 'private, max-age=0')
    .header('x-content-type-options', 'nosniff')
    .send(found.body);
  return {};
}

export const uploadRoutes: Route[] = [
  route({
    method: 'POST', path: '/user_uploads', auth: 'user', streamsFiles: true, summary: 'Upload a file',
    answer: Type.Object({
      uri: Type.String(), url: Type.Optional(Type.String({ description: 'The same as uri, which it replaces (feature level 272)' })),
      filename: Type.Optional(Type.String({ description: "From feature level 286: the file's name as uploaded, closer to it than the url's last part" })),
    }),
    handler: async (r) => {
      const maxMib = r.ctx.config.maxFileUploadSizeMib;
      const { url: uri, fileName } = await uploadFile(r.ctx, r.user, filesOf(r.req, maxMib * MIB), maxMib);
      const level = r.ctx.config.featureLevel;
      // Level 272 renamed the field `url`; `uri` stays for older clients (zulip-flutter reads it). Level 286 added `filename`.
      return { uri, ...(level >= 272 ? { url: uri } : {}), ...(level >= 286 ? { filename: fileName } : {}) };
    },
  }),
  // A message's links are relative (/user_uploads/...); clients fetch them with the API's
  // basic auth (Zulip's override_api_url_scheme), or under /api/v1 as well. The file's
  // bytes (or an HTML error page): no JSON answer.
  route({
    method: 'GET', path: '/user_uploads/:realm_id/*', prefix: '', auth: 'none', summary: 'Get an uploaded file',
    handler: async (r) => {
      // The web app's images: the browser sends its session cookie, never basic auth.
      if (r.req.headers.authorization === undefined && r.req.cookies[SESSION_COOKIE] !== undefined) {
        return serveUpload(r, (await authenticateSession(r.ctx, r.req)).user);
      }
      if (r.req.headers.authorization === undefined) throw notLoggedIn();
      const { user } = await authenticate(r.ctx, r.req.headers.host, r.req.headers.authorization);
      return serveUpload(r, user);
    },
  }),
  route({
    method: 'GET', path: '/user_uploads/:realm_id/*', auth: 'user', summary: 'Get an uploaded file',
    handler: (r) => serveUpload(r, r.user),
  }),
  route({
    method: 'GET', path: '/attachments', auth: 'user', summary: 'Get attachments',
    answer: Type.Object({ attachments: Type.Array(WireAttachment), upload_space_used: Type.Integer() }),
    handler: async (r) => userAttachments(r.ctx.store.db, r.user),
  }),
  route({
    method: 'DELETE', path: '/attachments/:attachment_id', auth: 'user', summary: 'Delete an attachment', answer: NoAnswer,
    handler: async (r) => done(deleteAttachment(r.ctx, r.user, pathInt(r, 'attachment_id'))),
  }),
];
