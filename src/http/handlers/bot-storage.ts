import type { AuthedRequest, Route } from '../route.js';
import type { Json } from '../params.js';
import { transact } from '../../actions/transaction.js';
import { doRemoveBotStorage, doSetBotStorage } from '../../actions/bot-storage.js';
import { botStorageOf } from '../../reads/bot-storage.js';
import { badRequest } from '../../errors.js';
import { LIST_LIMITS } from '../../lib/limits.js';

/** Zulip's check_dict(value_validator=check_string), with its messages. */
function storageEntries(raw: Json): Array<{ key: string; value: string }> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('storage is not a dict');
  return Object.entries(raw).map(([key, value]) => {
    if (typeof value !== 'string') throw badRequest(`storage["${key}"] is not a string`);
    return { key, value };
  });
}

const keysOf = (r: AuthedRequest) => r.params.optStrList('keys', LIST_LIMITS.other);

export const botStorageRoutes: Route[] = [
  {
    method: 'GET', path: '/bot_storage', auth: 'user',
    handler: async (r) => ({ storage: await botStorageOf(r.ctx.store.db, r.user, keysOf(r)) }),
  },
  {
    method: 'PUT', path: '/bot_storage', auth: 'user',
    handler: async (r) => {
      const entries = storageEntries(r.params.json('storage'));
      await transact(r.ctx, (tx) => doSetBotStorage(tx, r.user, entries, r.ctx.config.botStorageLimit));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/bot_storage', auth: 'user',
    handler: async (r) => {
      const keys = keysOf(r);
      await transact(r.ctx, (tx) => doRemoveBotStorage(tx, r.user, keys));
      return {};
    },
  },
];
