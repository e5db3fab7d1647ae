import type { Logger } from 'pino';
import { ApiError, INTERNAL_ERROR_BODY } from '../errors.js';
import { frameworkRefusal, refusalBody } from './refusals.js';

/**
 * The one place a thrown thing becomes an HTTP answer, for Fastify's routes and the direct
 * long-poll path alike. `bodyRead` false: it failed while the body was being read (a
 * truncated multipart stream, say), which is the client's doing.
 */
export function renderError(err: unknown, log: Logger, bodyRead: boolean, reqId?: string): { status: number; body: Record<string, unknown> } {
  if (err instanceof ApiError) return { status: err.httpStatus, body: err.toJSON() };
  const e = err as { statusCode?: number; message?: string; code?: string };
  // Fastify's own refusals (bad JSON body, too large, bad multipart, a bad URL), and
  // anything that failed while the body was being read: the client's doing.
  if (!bodyRead || (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500)) {
    const r = frameworkRefusal(e);
    return { status: r.status, body: refusalBody(r) };
  }
  if (e.code === '22003') {
    // A number past a column's range (PostgreSQL checks; SQLite just finds nothing).
    return { status: 400, body: { result: 'error', msg: 'Number out of range', code: 'BAD_REQUEST' } };
  }
  if (e.code === '22021' || e.code === '22P05') {
    // PostgreSQL refuses NUL and other unencodable characters in text. SQLite would have
    // stored them; either way the input was the client's mistake.
    return { status: 400, body: { result: 'error', msg: 'Invalid characters in request', code: 'BAD_REQUEST' } };
  }
  log.error({ err, reqId }, 'unhandled error');
  return { status: 500, body: { ...INTERNAL_ERROR_BODY } };
}
