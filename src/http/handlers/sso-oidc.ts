import { route, type BaseRequest, type Route } from '../route.js';
import { realmUri } from '../../lib/realm-host.js';
import { constantTimeEqual } from '../../lib/secrets.js';
import type { OidcConfig } from '../../lib/sso-config.js';
import { SsoRefusal, signInExternally } from '../../actions/external-login.js';
import { beginOidc, completeOidc, type OidcFlowData } from '../../sso/oidc.js';
import {
  FLOW_COOKIE, clearFlowCookie, finishSignIn, isDesktopApp, readFlowStart, refusingWithPage, saveFlow, sendDesktopLogin, setFlowCookie, takeFlow,
} from '../sso/flow.js';

/** Zulip's generic OpenID Connect backend's URLs: the buttons (login_url, signup_url) and the redirect URI. */
const CALLBACK_PATH = '/complete/oidc/';

const redirectUri = (r: BaseRequest<unknown>): string => `${realmUri(r.ctx.config, r.realm)}${CALLBACK_PATH}`;

function configured(r: BaseRequest<unknown>): OidcConfig {
  const cfg = r.ctx.config.sso.oidc;
  if (!cfg) throw new SsoRefusal('not_configured', 'Sign-in with OpenID Connect is not set up on this server.', { backend: 'oidc' });
  return cfg;
}

const one = (v: unknown): string | undefined => (Array.isArray(v) ? one(v[0]) : typeof v === 'string' ? v : undefined);

const start = (path: string, isSignup: boolean): Route => route({
  method: 'GET', path, prefix: '', auth: 'none', summary: `${isSignup ? 'Sign up' : 'Sign in'} through the OpenID Connect provider`,
  handler: (r) => refusingWithPage(r, async () => {
    const cfg = configured(r);
    if (isDesktopApp(r.req)) return sendDesktopLogin(r.reply);
    const flowStart = readFlowStart(r.req, isSignup);
    const { url, data } = await beginOidc(cfg, redirectUri(r));
    const token = await saveFlow<OidcFlowData>(r.ctx, r.realm, { backend: 'oidc', start: flowStart, method: data });
    setFlowCookie(r.ctx, r.reply, token);
    void r.reply.status(302).header('location', url).header('cache-control', 'no-store').send();
    return {};
  }),
});

export const oidcRoutes: Route[] = [
  start('/accounts/login/social/oidc', false),
  start('/accounts/register/social/oidc', true),
  route({
    method: 'GET', path: CALLBACK_PATH, prefix: '', auth: 'none', summary: 'Where the OpenID Connect provider sends the person back (the redirect URI)',
    handler: (r) => refusingWithPage(r, async () => {
      const cfg = configured(r);
      // The flow is used up here whatever follows: a second answer for it (a replay) finds nothing.
      clearFlowCookie(r.ctx, r.reply);
      const flow = await takeFlow<OidcFlowData>(r.ctx, r.realm, 'oidc', r.req.cookies[FLOW_COOKIE]);
      const query = (r.req.query ?? {}) as Record<string, unknown>;
      const state = one(query.state);
      if (state === undefined || !constantTimeEqual(state, flow.method.state)) {
        throw new SsoRefusal('bad_state', 'This sign-in did not begin in this browser. Start again from the sign-in page.', { backend: 'oidc', realm: r.realm.string_id });
      }
      const currentUrl = new URL(redirectUri(r));
      currentUrl.search = new URL(r.req.url, 'http://callback.invalid').search;
      const identity = await completeOidc(cfg, currentUrl, flow.method);
      const user = await signInExternally(r.ctx, r.realm, identity, { autoSignup: cfg.autoSignup });
      return finishSignIn(r, user, flow.start);
    }),
  }),
];
