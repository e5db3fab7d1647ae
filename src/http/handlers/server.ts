import type { Route } from '../route.js';
import { presentServerSettings } from '../../presenters/realm.js';
import { fetchApiKey } from '../../actions/login.js';
import { clientAddress } from '../rate-limit.js';

export const serverRoutes: Route[] = [
  {
    method: 'GET', path: '/server_settings', auth: 'none',
    handler: async (r) => presentServerSettings(r.ctx.config, r.realm),
  },
  {
    method: 'POST', path: '/fetch_api_key', auth: 'none',
    handler: async (r) => {
      const user = await fetchApiKey(r.ctx, r.realm, r.params.str('username'), r.params.str('password'), clientAddress(r.req.ip));
      return { api_key: user.api_key, email: user.email, user_id: user.id };
    },
  },
];
