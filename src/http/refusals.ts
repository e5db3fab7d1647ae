import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../errors.js';
import { MAX_BODY_BYTES } from './body-limits.js';

/**
 * The refusals that Node and Fastify would answer in their own shape, in the API's:
 * `{result: "error", msg, code}`. Zulip's codes where one fits (REQUEST_TIMEOUT,
 * INVALID_JSON, SERVER_NOT_READY), BAD_REQUEST otherwise.
 */
export interface Refusal {
  status: number;
  code: ErrorCode;
  msg: string;
}

export const refusalBody = (r: Refusal) => ({ result: 'error', msg: r.msg, code: r.code });

/** The server is shutting down: a request that arrives now is for another node. */
export const SHUTTING_DOWN: Refusal = { status: 503, code: 'SERVER_NOT_READY', msg: 'The server is shutting down; try again shortly' };

const bad = (status: number, msg: string): Refusal => ({ status, code: 'BAD_REQUEST', msg });

/** Node's parse errors before any route (clientError), by code: a bad request line, huge headers, a slow client. */
const CLIENT_ERRORS: Record<string, Refusal> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', msg: 'Request timeout' },
  HPE_HEADER_OVERFLOW: bad(431, 'Request header fields too large'),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: bad(413, 'Request body is malformed'),
};

export function clientErrorRefusal(err: { code?: string }): Refusal {
  return (err.code !== undefined && Object.hasOwn(CLIENT_ERRORS, err.code) ? CLIENT_ERRORS[err.code] : undefined) ?? bad(400, 'Bad request');
}

/**
 * Fastify's clientErrorHandler: answers on the raw socket (no request object exists yet) and
 * closes it, since the stream can no longer be parsed. Nothing to say to a socket that is gone.
 */
export function onClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || pending?.headersSent) {
    socket.destroy(err);
    return;
  }
  socket.end(rawResponse(clientErrorRefusal(err)));
}

export function rawResponse(r: Refusal): string {
  const body = JSON.stringify(refusalBody(r));
  return `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n`
    + `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * Errors Fastify or its plugins raise while routing or reading a body (they carry a
 * `statusCode` and a `code` such as FST_ERR_CTP_INVALID_JSON_BODY).
 */
const TOO_LARGE = bad(413, `Request body is larger than the limit of ${MAX_BODY_BYTES / (1024 * 1024)} MiB`);
const UNSUPPORTED = bad(415, 'Unsupported media type');
const MALFORMED_JSON: Refusal = { status: 400, code: 'INVALID_JSON', msg: 'Malformed JSON' };
const FRAMEWORK_ERRORS: Record<string, Refusal> = {
  FST_ERR_CTP_INVALID_JSON_BODY: MALFORMED_JSON, FST_ERR_CTP_EMPTY_JSON_BODY: MALFORMED_JSON, FST_INVALID_JSON_FIELD_ERROR: MALFORMED_JSON,
  FST_ERR_CTP_BODY_TOO_LARGE: TOO_LARGE, FST_PARTS_LIMIT: TOO_LARGE, FST_FILES_LIMIT: TOO_LARGE, FST_FIELDS_LIMIT: TOO_LARGE, FST_REQ_FILE_TOO_LARGE: TOO_LARGE,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: UNSUPPORTED, FST_INVALID_MULTIPART_CONTENT_TYPE: UNSUPPORTED,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: bad(400, 'Request body size did not match Content-Length'),
  FST_ERR_BAD_URL: bad(400, 'Malformed URL'),
  FST_PROTO_VIOLATION: bad(400, 'Invalid parameter name'),
  FST_MP_PREMATURE_CLOSE: bad(400, 'Request body ended early'),
};

export function frameworkRefusal(err: { statusCode?: number; code?: string; message?: string }): Refusal {
  if (err.code !== undefined && Object.hasOwn(FRAMEWORK_ERRORS, err.code)) return FRAMEWORK_ERRORS[err.code]!;
  const s = err.statusCode;
  const status = s === 408 || s === 413 || s === 415 || s === 431 ? s : 400;
  // busboy's and Fastify's messages describe the body's fault without internals.
  return { status, code: status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST', msg: err.message || 'Malformed request body' };
}
