import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { RealmRow, UserRow } from '../../rows.js';
import type { BaseRequest } from '../route.js';
import { bothOtps, invalidOtp } from '../../errors.js';
import { isValidOtp, otpEncryptApiKey, desktopEncrypt } from '../../lib/otp.js';
import { realmUri } from '../../lib/realm-host.js';
import { saveSsoToken, takeSsoToken, LOGIN_TOKEN_TTL_SECS } from '../../actions/sso-tokens.js';
import { createSession } from '../../actions/sessions.js';
import { setSessionCookies } from '../session-auth.js';
import { SsoRefusal } from '../../actions/external-login.js';
import { sendDesktopLoginPage, sendDesktopRedirectPage, sendRefusalPage } from './pages.js';
import { clientAddress } from '../rate-limit.js';

/**
 * What the person (or the Zulip app that sent them) asked for when a sign-in through an
 * identity provider began, kept until the provider sends them back.
 */
export interface FlowStart {
  /** The phone app's one-time pad: the end is a zulip:// redirect with the API key. */
  mobileFlowOtp: string | null;
  /** The desktop app's AES key: the end is a page with a login token encrypted to it. */
  desktopFlowOtp: string | null;
  /** Where the web app goes afterwards: a path of this organization. */
  next: string;
  /** Came from a "sign up" button (signup_url). */
  isSignup: boolean;
}

/** A flow in progress: the start, and what the method needs to check the provider's answer. */
export interface Flow<T> {
  backend: string;
  start: FlowStart;
  method: T;
}

/** A flow lasts as long as a person may spend at the provider's page (password, second factor). */
const FLOW_TTL_SECS = 15 * 60;

/** The cookie that binds a flow to the browser that began it (OpenID's state must come back to it). */
export const FLOW_COOKIE = 'parley_sso_flow';

const one = (v: unknown): string | undefined => (Array.isArray(v) ? one(v[0]) : typeof v === 'string' ? v : undefined);

/** Zulip's validate_otp_params and `next`, from the start URL's query string. */
export function readFlowStart(req: FastifyRequest, isSignup: boolean): FlowStart {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const mobile = one(q.mobile_flow_otp) ?? null;
  const desktop = one(q.desktop_flow_otp) ?? null;
  for (const otp of [mobile, desktop]) if (otp !== null && !isValidOtp(otp)) throw invalidOtp();
  if (mobile && desktop) throw bothOtps();
  return { mobileFlowOtp: mobile, desktopFlowOtp: desktop, next: safeNext(one(q.next)), isSignup };
}

/** A path on this organization's site, never another site (Zulip's get_safe_redirect_to). */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\') || /[\u0000-\u001f]/.test(next)) return '/';
  return next;
}

/** Zulip's handle_desktop_flow: the desktop app's own window never goes to the provider itself. */
export function isDesktopApp(req: FastifyRequest): boolean {
  return /\bZulipElectron\b/.test(req.headers['user-agent'] ?? '');
}

/** The desktop app opened a sign-in button: it gets the page that sends the system browser instead. */
export function sendDesktopLogin(reply: FastifyReply): Record<string, never> {
  return sendDesktopLoginPage(reply);
}

/** Keeps a new flow; answers its token (the OpenID state's key, or SAML's RelayState). */
export async function saveFlow<T>(ctx: AppContext, realm: RealmRow, flow: Flow<T>): Promise<string> {
  return saveSsoToken(ctx, 'flow', realm.id, flow, FLOW_TTL_SECS);
}

/**
 * The flow under `token`, once, if it began on this organization for this method: a
 * second answer from the provider, another organization's or an expired flow is refused.
 */
export async function takeFlow<T>(ctx: AppContext, realm: RealmRow, backend: string, token: string | undefined): Promise<Flow<T>> {
  if (!token) throw new SsoRefusal('bad_state', 'This sign-in did not begin in this browser, or it was already used. Start again from the sign-in page.', { backend, realm: realm.string_id });
  const kept = await takeSsoToken<Flow<T>>(ctx, 'flow', token);
  if (!kept || kept.realmId !== realm.id || kept.data.backend !== backend) {
    throw new SsoRefusal('expired', 'This sign-in expired or was already used. Start again from the sign-in page.', { backend, realm: realm.string_id });
  }
  return kept.data;
}

export function setFlowCookie(ctx: AppContext, reply: FastifyReply, token: string): void {
  reply.setCookie(FLOW_COOKIE, token, {
    path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.config.externalUrl.startsWith('https:'), maxAge: FLOW_TTL_SECS,
  });
}

export function clearFlowCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.clearCookie(FLOW_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.config.externalUrl.startsWith('https:') });
}

/**
 * The end of a sign-in that succeeded (Zulip's login_or_register_remote_user): the phone
 * app's zulip:// redirect, the desktop app's encrypted login token, or a web session.
 */
export async function finishSignIn(r: BaseRequest<unknown>, user: UserRow, start: FlowStart): Promise<Record<string, never>> {
  const { ctx, realm, reply } = r;
  if (start.mobileFlowOtp) {
    // Zulip's create_response_for_otp_flow; the Location is not http(s), so it is set by hand.
    const params = new URLSearchParams({
      otp_encrypted_api_key: otpEncryptApiKey(user.api_key, start.mobileFlowOtp),
      email: user.delivery_email,
      user_id: String(user.id),
      realm: realmUri(ctx.config, realm),
    });
    void reply.status(302).header('location', `zulip://login?${params.toString()}`).header('cache-control', 'no-store').send();
    return {};
  }
  if (start.desktopFlowOtp) {
    const token = await saveSsoToken(ctx, 'login', realm.id, { userId: user.id }, LOGIN_TOKEN_TTL_SECS);
    return sendDesktopRedirectPage(reply, desktopEncrypt(token, start.desktopFlowOtp), realm.name);
  }
  setSessionCookies(ctx, reply, await createSession(ctx, realm, user));
  void reply.status(302).header('location', new URL(start.next, realmUri(ctx.config, realm)).href).header('cache-control', 'no-store').send();
  return {};
}

/** Refusals that are someone's failed attempt, counted like a wrong password; a provider's outage is not. */
const COUNTED: ReadonlySet<SsoRefusal['reason']> = new Set(['bad_state', 'expired', 'invalid_response', 'replayed', 'unverified_email', 'invalid_email', 'no_account', 'user_deactivated']);

/**
 * Runs a method's step under the sign-in failure budget of the address (Zulip's
 * authenticate_by_ip, shared with passwords); an SsoRefusal becomes the refusal page,
 * logged with its reason and never a secret. Anything else is a bug: the API's 500.
 */
export async function refusingWithPage(r: BaseRequest<unknown>, step: () => Promise<Record<string, never>>): Promise<Record<string, never>> {
  const ip = clientAddress(r.req.ip);
  const { limiter } = r.ctx;
  try {
    const budget = limiter.enabled ? await limiter.peek('authenticate_by_ip', ip) : undefined;
    if (budget?.limited) {
      throw new SsoRefusal('rate_limited', `Too many failed sign-ins from your address. Try again in ${Math.ceil(budget.secsToFreedom)} seconds.`);
    }
    return await step();
  } catch (err) {
    if (!(err instanceof SsoRefusal)) throw err;
    if (limiter.enabled && COUNTED.has(err.reason)) await limiter.hit('authenticate_by_ip', ip);
    r.ctx.log.warn({ reason: err.reason, ip, realm: r.realm.string_id, ...err.logDetail }, 'single sign-on refused');
    if (err.reason === 'rate_limited') void r.reply.header('retry-after', '60');
    return sendRefusalPage(r.reply, err.httpStatus, err.message);
  }
}
