import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../errors.js';
import { MAX_BODY_BYTES, MAX_MULTIPART_FIELDS } from './body-limits.js';

export const bodyTooLarge = (limit: number) =>
  new ApiError('BAD_REQUEST', `Request body is larger than the limit of ${Math.floor(limit / (1024 * 1024))} MiB`, 413);
export const fileNotAccepted = () => badRequest('This endpoint does not accept file uploads');

/** A declared Content-Length past `limit` is refused before a byte of the body is read. */
export function checkDeclaredLength(req: FastifyRequest, limit: number, refuse: (limit: number) => ApiError = bodyTooLarge): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw refuse(limit);
}

/**
 * The plain fields of a multipart body on a route that takes no file, as a form body's
 * would be: the first file part is refused at its headers, unread, and the fields together
 * may not pass the global body limit (a body sent chunked declares no length). A field
 * longer than the limit is cut by the parser; cut means too large, never a shorter value.
 */
export async function multipartFields(req: FastifyRequest): Promise<Record<string, string>> {
  checkDeclaredLength(req, MAX_BODY_BYTES);
  const fields: Record<string, string> = Object.create(null);
  let total = 0;
  const parts = req.parts({ limits: { fields: MAX_MULTIPART_FIELDS, fieldSize: MAX_BODY_BYTES, files: 1, parts: MAX_MULTIPART_FIELDS + 1 } });
  for await (const part of parts) {
    if (part.type === 'file') throw fileNotAccepted();
    const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
    total += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value);
    if (part.valueTruncated || total > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
    fields[part.fieldname] = value;
  }
  return fields;
}
