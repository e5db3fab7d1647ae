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

/** Node's parse errors before any route (clientError): a bad request line, huge headers, a slow client. */
export function clientErrorRefusal(err: { code?: string }): Refusal {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', msg: 'Request timeout' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'BAD_REQUEST', msg: 'Request header fields too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'BAD_REQUEST', msg: 'Request body is malformed' };
    default:
      return { status: 400, code: 'BAD_REQUEST', msg: 'Bad request' };
  }
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
export function frameworkRefusal(err: { statusCode?: number; code?: string; message?: string }): Refusal {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return { status: 400, code: 'INVALID_JSON', msg: 'Malformed JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, code: 'BAD_REQUEST', msg: `Request body is larger than the limit of ${MAX_BODY_BYTES / (1024 * 1024)} MiB` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 415, code: 'BAD_REQUEST', msg: 'Unsupported media type' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'BAD_REQUEST', msg: 'Request body size did not match Content-Length' };
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'BAD_REQUEST', msg: 'Malformed URL' };
    case 'FST_PROTO_VIOLATION':
      return { status: 400, code: 'BAD_REQUEST', msg: 'Invalid parameter name' };
    case 'FST_MP_PREMATURE_CLOSE':
      return { status: 400, code: 'BAD_REQUEST', msg: 'Request body ended early' };
    default: {
      const s = err.statusCode;
      const status = s === 408 || s === 413 || s === 415 || s === 431 ? s : 400;
      // busboy's and Fastify's messages describe the body's fault without internals.
      return { status, code: status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST', msg: err.message || 'Malformed request body' };
    }
  }
}
