import type { Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { requireNotGuest } from '../../access/user.js';
import { doCreateBot } from '../../actions/bot-create.js';
import { presentCreatedBot } from '../../presenters/bot.js';
import { badRequest } from '../../errors.js';
import { isUrl } from '../../lib/url.js';

export const botRoutes: Route[] = [
  {
    method: 'POST', path: '/bots', auth: 'user',
    handler: async (r) => {
      requireNotGuest(r.user);
      const fullName = r.params.str('full_name');
      const shortName = r.params.str('short_name');
      const botType = r.params.optInt('bot_type') ?? 1;
      const payloadUrl = r.params.optStr('payload_url');
      if (payloadUrl !== undefined && !isUrl(payloadUrl)) throw badRequest('payload_url is not a URL');
      const interfaceType = r.params.optInt('interface_type');
      const serviceName = r.params.optStr('service_name');
      const bot = await transact(r.ctx, (tx) => doCreateBot(tx, r.ctx.config, r.realm, r.user, {
        fullName, shortName, botType, payloadUrl, interfaceType, serviceName,
      }));
      return presentCreatedBot(bot);
    },
  },
];
