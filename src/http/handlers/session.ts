import { NoAnswer, route, type Route } from '../route.js';
import { Str, Type } from '../../schemas/params.js';
import { fetchApiKey } from '../../actions/login.js';
import { createSession, deleteSession } from '../../actions/sessions.js';
import { authenticateSession, clearSessionCookies, setSessionCookies } from '../session-auth.js';
import { clientAddress } from '../rate-limit.js';

/** Signing in and out of the web app (web-contract.md): outside /api/v1, answered in the API's JSON shape. */
export const sessionRoutes: Route[] = [
  route({
    method: 'POST', path: '/accounts/login', prefix: '', auth: 'none', summary: 'Sign in to the web app', params: { username: Str(), password: Str() },
    answer: Type.Object({ user_id: Type.Integer() }),
    handler: async (r) => {
      // The same checks, wording and failure limit as POST /fetch_api_key; the key stays here.
      const user = await fetchApiKey(r.ctx, r.realm, r.args.username, r.args.password, clientAddress(r.req.ip));
      setSessionCookies(r.ctx, r.reply, await createSession(r.ctx, r.realm, user));
      return { user_id: user.id };
    },
  }),
  route({
    method: 'POST', path: '/accounts/logout', prefix: '', auth: 'none', summary: 'Sign out of the web app', answer: NoAnswer,
    handler: async (r) => {
      const { idHash } = await authenticateSession(r.ctx, r.req);
      await deleteSession(r.ctx, idHash);
      clearSessionCookies(r.ctx, r.reply);
      return {};
    },
  }),
];
