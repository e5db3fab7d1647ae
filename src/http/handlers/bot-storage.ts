import { done, NoAnswer, route, type Route } from '../route.js';
import { AnyJson, Opt, StrList, Type } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doRemoveBotStorage, doSetBotStorage } from '../../actions/bot-storage.js';
import { botStorageOf } from '../../reads/bot-storage.js';
import { badRequest } from '../../errors.js';
import { LIST_LIMITS } from '../../lib/limits.js';

/** Zulip's check_dict(value_validator=check_string), with its messages. */
function storageEntries(raw: unknown): Array<{ key: string; value: string }> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('storage is not a dict');
  return Object.entries(raw).map(([key, value]) => {
    if (typeof value !== 'string') throw badRequest(`storage["${key}"] is not a string`);
    return { key, value };
  });
}

const KEYS = Opt(StrList(LIST_LIMITS.other));

export const botStorageRoutes: Route[] = [
  route({
    method: 'GET', path: '/bot_storage', auth: 'user', summary: "Get the bot's storage", params: { keys: KEYS },
    answer: Type.Object({ storage: Type.Record(Type.String(), Type.String()) }),
    handler: async (r) => ({ storage: await botStorageOf(r.ctx.store.db, r.user, r.args.keys) }),
  }),
  route({
    method: 'PUT', path: '/bot_storage', auth: 'user', summary: "Set entries of the bot's storage",
    // Any JSON: the dict and its string values are checked above, with Zulip's messages.
    params: { storage: AnyJson() },
    answer: NoAnswer,
    handler: async (r) => {
      const entries = storageEntries(r.args.storage);
      return done(transact(r.ctx, (tx) => doSetBotStorage(tx, r.user, entries, r.ctx.config.botStorageLimit)));
    },
  }),
  route({
    method: 'DELETE', path: '/bot_storage', auth: 'user', summary: "Remove entries of the bot's storage", params: { keys: KEYS }, answer: NoAnswer,
    handler: async (r) => {
      const { keys } = r.args;
      return done(transact(r.ctx, (tx) => doRemoveBotStorage(tx, r.user, keys)));
    },
  }),
];
