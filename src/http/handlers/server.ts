import { route, type Route } from '../route.js';
import { Str, Type } from '../../schemas/params.js';
import { presentServerSettings } from '../../presenters/realm.js';
import { fetchApiKey } from '../../actions/login.js';
import { clientAddress } from '../rate-limit.js';
import { WireServerSettings } from '../../schemas/wire.js';

export const serverRoutes: Route[] = [
  route({
    method: 'GET', path: '/server_settings', auth: 'none', summary: 'Get server settings', answer: WireServerSettings,
    handler: async (r) => presentServerSettings(r.ctx.config, r.realm),
  }),
  route({
    method: 'POST', path: '/fetch_api_key', auth: 'none', summary: 'Fetch an API key', params: { username: Str(), password: Str() },
    answer: Type.Object({ api_key: Type.String(), email: Type.String(), user_id: Type.Integer() }),
    handler: async (r) => {
      const user = await fetchApiKey(r.ctx, r.realm, r.args.username, r.args.password, clientAddress(r.req.ip));
      // The real address, as Zulip answers (the same as `email` below feature level 163).
      return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
    },
  }),
];
