import type { AuthedRequest, Route } from '../route.js';
import { pathInt } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { accessBotById, requireMemberOrAdmin } from '../../access/bot.js';
import { doCreateBot } from '../../actions/bot-create.js';
import { doUpdateBot } from '../../actions/bot-update.js';
import { doDeactivateBot } from '../../actions/user-deactivate.js';
import { doRegenerateApiKey } from '../../actions/user-update.js';
import { createdBotAnswer, listBotsFor, patchedBotAnswer } from '../../reads/bots.js';
import { badRequest } from '../../errors.js';
import { isUrl } from '../../lib/url.js';

/** Zulip's check_url validator, with its message. */
function optUrl(r: AuthedRequest, name: string): string | undefined {
  const v = r.params.optStr(name);
  if (v !== undefined && !isUrl(v)) throw badRequest(`${name} is not a URL`);
  return v;
}

// Every route here is Zulip's @require_member_or_admin: no guests, no bots.
export const botRoutes: Route[] = [
  {
    method: 'GET', path: '/bots', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      return { bots: await listBotsFor(r.ctx.store.db, r.user) };
    },
  },
  {
    method: 'POST', path: '/bots', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      const fullName = r.params.str('full_name');
      const shortName = r.params.str('short_name');
      const botType = r.params.optInt('bot_type') ?? 1;
      const payloadUrl = optUrl(r, 'payload_url');
      const interfaceType = r.params.optInt('interface_type');
      const serviceName = r.params.optStr('service_name');
      const defaultSendingStream = r.params.optStr('default_sending_stream');
      const defaultEventsRegisterStream = r.params.optStr('default_events_register_stream');
      const defaultAllPublicStreams = r.params.optBool('default_all_public_streams');
      const bot = await transact(r.ctx, (tx) => doCreateBot(tx, r.ctx.config, r.realm, r.user, {
        fullName, shortName, botType, payloadUrl, interfaceType, serviceName, defaultSendingStream, defaultEventsRegisterStream, defaultAllPublicStreams,
      }));
      return createdBotAnswer(r.ctx.store.db, bot);
    },
  },
  {
    method: 'PATCH', path: '/bots/:bot_id', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      const botId = pathInt(r, 'bot_id');
      const asked = { servicePayloadUrl: optUrl(r, 'service_payload_url'), serviceInterface: r.params.optInt('service_interface') ?? 1 };
      const bot = await transact(r.ctx, (tx) => doUpdateBot(tx, r.user, botId, {
        fullName: r.params.optStr('full_name'),
        ownerId: r.params.optInt('bot_owner_id'),
        defaultSendingStream: r.params.optStr('default_sending_stream'),
        defaultEventsRegisterStream: r.params.optStr('default_events_register_stream'),
        defaultAllPublicStreams: r.params.optBool('default_all_public_streams'),
        ...asked,
      }));
      return patchedBotAnswer(r.ctx.store.db, bot, asked);
    },
  },
  {
    method: 'DELETE', path: '/bots/:bot_id', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      const botId = pathInt(r, 'bot_id');
      await transact(r.ctx, async (tx) => doDeactivateBot(tx, await accessBotById(tx.db, r.user, botId)));
      return {};
    },
  },
  {
    method: 'POST', path: '/bots/:bot_id/api_key/regenerate', auth: 'user',
    handler: async (r) => {
      requireMemberOrAdmin(r.user);
      const botId = pathInt(r, 'bot_id');
      return { api_key: await transact(r.ctx, async (tx) => doRegenerateApiKey(tx, await accessBotById(tx.db, r.user, botId))) };
    },
  },
];
