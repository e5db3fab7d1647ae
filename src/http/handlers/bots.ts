import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Bool, Default, Int, Opt, Str, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { accessBotById } from '../../access/bot.js';
import { doCreateBot } from '../../actions/bot-create.js';
import { doUpdateBot } from '../../actions/bot-update.js';
import { doDeactivateBot } from '../../actions/user-deactivate.js';
import { doRegenerateApiKey } from '../../actions/user-update.js';
import { createdBotAnswer, listBotsFor, patchedBotAnswer } from '../../reads/bots.js';
import { badRequest } from '../../errors.js';
import { WireCreatedBot, WireListedBot, WirePatchedBot } from '../../schemas/wire.js';
import { isUrl } from '../../lib/url.js';
import { ROLE_VALUES } from '../../lib/roles.js';

/** Zulip's check_url validator, with its message. */
function checkUrl(name: string, v: string | undefined): string | undefined {
  if (v !== undefined && !isUrl(v)) throw badRequest(`${name} is not a URL`);
  return v;
}

// Every route here is Zulip's @require_member_or_admin: no guests, no bots.
export const botRoutes: Route[] = [
  route({
    method: 'GET', path: '/bots', auth: 'user', summary: 'Get bots', requires: 'member', answer: Type.Object({ bots: Type.Array(WireListedBot) }),
    handler: async (r) => {
      return { bots: await listBotsFor(r.ctx.store.db, r.user) };
    },
  }),
  route({
    method: 'POST', path: '/bots', auth: 'user', summary: 'Create a bot', requires: 'member',
    params: {
      full_name: Str(), short_name: Str(), bot_type: Default(Int(), 1), payload_url: Opt(Str()), interface_type: Opt(Int()), service_name: Opt(Str()),
      default_sending_stream: Opt(Str()), default_events_register_stream: Opt(Str()), default_all_public_streams: Opt(Bool()),
    },
    answer: WireCreatedBot,
    handler: async (r) => {
      const fullName = r.args.full_name;
      const shortName = r.args.short_name;
      const botType = r.args.bot_type;
      const payloadUrl = checkUrl('payload_url', r.args.payload_url);
      const interfaceType = r.args.interface_type;
      const serviceName = r.args.service_name;
      const defaultSendingStream = r.args.default_sending_stream;
      const defaultEventsRegisterStream = r.args.default_events_register_stream;
      const defaultAllPublicStreams = r.args.default_all_public_streams;
      const bot = await transact(r.ctx, (tx) => doCreateBot(tx, r.ctx.config, r.realm, r.user, {
        fullName, shortName, botType, payloadUrl, interfaceType, serviceName, defaultSendingStream, defaultEventsRegisterStream, defaultAllPublicStreams,
      }));
      return createdBotAnswer(r.ctx.store.db, bot);
    },
  }),
  route({
    method: 'PATCH', path: '/bots/:bot_id', auth: 'user', summary: 'Update a bot', requires: 'member',
    params: {
      service_payload_url: Opt(Str()), service_interface: Default(Int(), 1), full_name: Opt(Str()),
      role: Opt(Int({ description: '100 owner, 200 administrator, 300 moderator, 400 member, 600 guest (feature level 130)' })), bot_owner_id: Opt(Int()),
      default_sending_stream: Opt(Str()), default_events_register_stream: Opt(Str()), default_all_public_streams: Opt(Bool()),
    },
    answer: WirePatchedBot,
    handler: async (r) => {
      const botId = pathInt(r, 'bot_id');
      const asked = { servicePayloadUrl: checkUrl('service_payload_url', r.args.service_payload_url), serviceInterface: r.args.service_interface };
      // Zulip's check_int_in refuses an unknown role while parsing, before the bot is looked up.
      const role = r.args.role;
      if (role !== undefined && !ROLE_VALUES.includes(role)) throw badRequest('Invalid role');
      // Read in this order, as before: each parameter when the object is built.
      const bot = await transact(r.ctx, (tx) => doUpdateBot(tx, r.user, botId, {
        fullName: r.args.full_name,
        role,
        ownerId: r.args.bot_owner_id,
        defaultSendingStream: r.args.default_sending_stream,
        defaultEventsRegisterStream: r.args.default_events_register_stream,
        defaultAllPublicStreams: r.args.default_all_public_streams,
        ...asked,
      }));
      return patchedBotAnswer(r.ctx.store.db, bot, asked);
    },
  }),
  route({
    method: 'DELETE', path: '/bots/:bot_id', auth: 'user', summary: 'Deactivate a bot', requires: 'member', answer: NoAnswer,
    handler: async (r) => {
      const botId = pathInt(r, 'bot_id');
      return done(transact(r.ctx, async (tx) => doDeactivateBot(tx, await accessBotById(tx.db, r.user, botId))));
    },
  }),
  route({
    method: 'POST', path: '/bots/:bot_id/api_key/regenerate', auth: 'user', summary: "Regenerate a bot's API key", requires: 'member',
    answer: Type.Object({ api_key: Type.String() }),
    handler: async (r) => {
      const botId = pathInt(r, 'bot_id');
      return { api_key: await transact(r.ctx, async (tx) => doRegenerateApiKey(tx, await accessBotById(tx.db, r.user, botId))) };
    },
  }),
];
