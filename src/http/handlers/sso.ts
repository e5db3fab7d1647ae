import { route, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import { createSession } from '../../actions/sessions.js';
import { setSessionCookies } from '../session-auth.js';
import { realmUri } from '../../lib/realm-host.js';
import { SsoRefusal, signInWithLoginToken } from '../../actions/external-login.js';
import { refusingWithPage } from '../sso/flow.js';
import { DESKTOP_LOGIN_JS, DESKTOP_LOGIN_SCRIPT, DESKTOP_REDIRECT_JS, DESKTOP_REDIRECT_SCRIPT } from '../sso/pages.js';

const LOGIN_TOKEN = /^[A-Za-z0-9]{32}$/;

const script = (path: string, body: string): Route => route({
  method: 'GET', path, prefix: '', auth: 'none', summary: "A script of the desktop app's sign-in pages",
  handler: async (r) => {
    void r.reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff').send(body);
    return {};
  },
});

/** The parts of single sign-on every method shares (the methods' own routes: sso-oidc.ts, sso-saml.ts). */
export const ssoRoutes: Route[] = [
  script(DESKTOP_LOGIN_SCRIPT, DESKTOP_LOGIN_JS),
  script(DESKTOP_REDIRECT_SCRIPT, DESKTOP_REDIRECT_JS),
  // Zulip's log_into_subdomain: the desktop app trades the login token it decrypted for a session.
  route({
    method: 'GET', path: '/accounts/login/subdomain/:token', prefix: '', auth: 'none', summary: 'Sign in with a one-time login token (the desktop app)',
    answer: Type.Object({}),
    handler: (r) => refusingWithPage(r, async () => {
      const token = r.path.token ?? '';
      if (!LOGIN_TOKEN.test(token)) throw new SsoRefusal('invalid_response', 'This sign-in link is not valid.', { backend: 'desktop' });
      const user = await signInWithLoginToken(r.ctx, r.realm, token);
      setSessionCookies(r.ctx, r.reply, await createSession(r.ctx, r.realm, user));
      void r.reply.status(302).header('location', `${realmUri(r.ctx.config, r.realm)}/`).header('cache-control', 'no-store').send();
      return {};
    }),
  }),
];
