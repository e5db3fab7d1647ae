import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../rows.js';
import { csrfFailed, notLoggedIn, realmDeactivated, userDeactivated } from '../errors.js';
import { resolveRealm } from './auth.js';
import { sessionLogin } from '../reads/sessions.js';
import { deleteSession, touchSession, type NewSession } from '../actions/sessions.js';
import { sessionIdHash } from '../lib/session-ids.js';
import { constantTimeEqual } from '../lib/secrets.js';
import { nowSeconds } from '../lib/time.js';

/**
 * The web app's authentication (web-contract.md): an HttpOnly session cookie, and for every
 * unsafe method the CSRF token in a header, as Zulip's web app sends it. The token is also
 * in a cookie the page's script can read; another site can make the browser send cookies
 * but cannot read them to set the header. /api/v1 never looks at any of this.
 */
export const SESSION_COOKIE = 'parley_session';
export const CSRF_COOKIE = 'parley_csrf';
const CSRF_HEADER = 'x-csrftoken';
// Longer values are no id of ours: not worth hashing.
const MAX_SESSION_ID_LENGTH = 100;

export interface SessionAuth { user: UserRow; realm: RealmRow; idHash: string }

/** What authentication reads of a request: a Fastify request, or a raw one with its cookies parsed (longpoll.ts). */
export interface SessionRequest { method?: string | undefined; headers: IncomingHttpHeaders; cookies: Record<string, string | undefined> }

/** One cookie of a raw Cookie header, decoded as @fastify/cookie decodes it. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let v = part.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length > 1) v = v.slice(1, -1);
    try {
      return v.includes('%') ? decodeURIComponent(v) : v;
    } catch {
      return v;
    }
  }
  return undefined;
}

/**
 * The signed-in user of a /json request. No session (or another organization's, or an expired
 * one): 401 before anything else, so that a page without a token learns it must sign in. Then
 * CSRF (403, as Django's middleware answers before the view); then the account's state, as
 * the API checks it, ending the session of a deactivated user or organization.
 */
export async function authenticateSession(ctx: AppContext, req: SessionRequest): Promise<SessionAuth> {
  const realm = await resolveRealm(ctx, req.headers.host);
  const id = req.cookies[SESSION_COOKIE];
  if (!id || id.length > MAX_SESSION_ID_LENGTH) throw notLoggedIn();
  const idHash = sessionIdHash(id);
  const login = await sessionLogin(ctx.store.db, idHash);
  if (!login || login.session.realm_id !== realm.id) throw notLoggedIn();
  if (login.session.expires <= nowSeconds()) {
    await deleteSession(ctx, idHash);
    throw notLoggedIn();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') checkCsrf(req, login.session.csrf_token);
  if (login.realm.deactivated === 1 || login.user.is_active !== 1) {
    await deleteSession(ctx, idHash);
    throw login.realm.deactivated === 1 ? realmDeactivated() : userDeactivated();
  }
  await touchSession(ctx, login.session);
  return { user: login.user, realm: login.realm, idHash };
}

function checkCsrf(req: SessionRequest, expected: string): void {
  const sent = req.headers[CSRF_HEADER];
  // Django's reasons (REASON_CSRF_TOKEN_MISSING / _INCORRECT).
  if (typeof sent !== 'string' || sent === '') throw csrfFailed('CSRF token missing.');
  if (!constantTimeEqual(sent, expected)) throw csrfFailed('CSRF token incorrect.');
}

/** Secure only when the server is reached over https: a plain-http install would never get it back. */
function cookieBase(ctx: AppContext) {
  return { path: '/', sameSite: 'lax' as const, secure: ctx.config.externalUrl.startsWith('https:') };
}

export function setSessionCookies(ctx: AppContext, reply: FastifyReply, s: NewSession): void {
  const base = { ...cookieBase(ctx), maxAge: s.lifetimeSecs };
  reply.setCookie(SESSION_COOKIE, s.id, { ...base, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, s.csrfToken, { ...base, httpOnly: false });
}

export function clearSessionCookies(ctx: AppContext, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { ...cookieBase(ctx), httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, cookieBase(ctx));
}
