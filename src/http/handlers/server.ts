import { route, type Route } from '../route.js';
import { Default, Str, Type } from '../../schemas/params.js';
import { presentServerSettings } from '../../presenters/realm.js';
import { fetchApiKey } from '../../actions/login.js';
import { clientAddress } from '../rate-limit.js';
import { WireServerSettings } from '../../schemas/wire.js';
import { ApiError, badRequest } from '../../errors.js';
import { passwordFormEnabled } from '../../lib/sso-config.js';

export const serverRoutes: Route[] = [
  route({
    method: 'GET', path: '/server_settings', auth: 'none', summary: 'Get server settings', answer: WireServerSettings,
    handler: async (r) => presentServerSettings(r.ctx.config, r.realm),
  }),
  route({
    method: 'POST', path: '/fetch_api_key', only: 'api', auth: 'none', summary: 'Fetch an API key', params: { username: Str(), password: Str() },
    answer: Type.Object({ api_key: Type.String(), email: Type.String(), user_id: Type.Integer() }),
    handler: async (r) => {
      const user = await fetchApiKey(r.ctx, r.realm, r.args.username, r.args.password, clientAddress(r.req.ip));
      // The real address, as Zulip answers (the same as `email` below feature level 163).
      return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
    },
  }),
  // The web app's own (Zulip's json_fetch_api_key, for settings' "Manage your API key"): the
  // signed-in user's key, the password asked again where passwords sign in, with the same
  // failure limit as signing in; a wrong one is "Password is incorrect." (400).
  route({
    method: 'POST', path: '/fetch_api_key', only: 'web', auth: 'user', summary: "Fetch the signed-in user's API key", params: { password: Default(Str(), '') },
    answer: Type.Object({ api_key: Type.String(), email: Type.String() }),
    handler: async (r) => {
      if (passwordFormEnabled(r.ctx.config.sso)) {
        let same = false;
        try {
          same = (await fetchApiKey(r.ctx, r.realm, r.user.delivery_email, r.args.password, clientAddress(r.req.ip))).id === r.user.id;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 'AUTHENTICATION_FAILED')) throw err;
        }
        if (!same) throw badRequest('Password is incorrect.');
      }
      return { api_key: r.user.api_key, email: r.user.delivery_email };
    },
  }),
];
