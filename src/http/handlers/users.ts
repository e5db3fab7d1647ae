import type { AuthedRequest, Route } from '../route.js';
import { pathInt } from '../route.js';
import { transact } from '../../store/tx.js';
import { maxMessageIdFor, messageVersion } from '../../lib/max-message-id.js';
import { identityVersion } from '../../store/versions.js';
import { PreSerialized } from '../route.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';

const meCache = new WeakMap<Kysely<DB>, Map<number, { key: string; body: PreSerialized }>>();
import { users } from '../../store/repos/users.js';
import { accessUserByEmail, accessUserById, requireAdmin, requireNotGuest } from '../../access/user.js';
import { presentUser, canSeeDeliveryEmail, avatarUrl } from '../../presenters/user.js';
import { doCreateUser } from '../../actions/user-create.js';
import { doChangeFullName, doChangeRole, doRegenerateApiKey } from '../../actions/user-update.js';
import { doDeactivateUser, doReactivateUser } from '../../actions/user-deactivate.js';
import { doCreateBot } from '../../actions/bot-create.js';
import { badRequest } from '../../errors.js';
import { Role } from '../../lib/roles.js';
import type { UserRow } from '../../store/rows.js';

function presentOpts(r: AuthedRequest) {
  return {
    clientGravatar: r.params.bool('client_gravatar', true),
    showDeliveryEmail: canSeeDeliveryEmail(r.user, r.realm),
    profileData: r.params.bool('include_custom_profile_fields', false) ? {} : undefined,
  };
}

async function targetOf(r: AuthedRequest): Promise<UserRow> {
  const key = r.path.user_id ?? '';
  if (/^\d+$/.test(key)) return accessUserById(r.ctx.store.db, r.user, Number(key), { allowDeactivated: true, allowBots: true });
  return accessUserByEmail(r.ctx.store.db, r.user, key);
}

export const userRoutes: Route[] = [
  {
    method: 'GET', path: '/users', auth: 'user',
    handler: async (r) => {
      const opts = presentOpts(r);
      const all = await users.listByRealm(r.ctx.store.db, r.realm.id);
      return { members: all.map((u) => presentUser(u, opts)) };
    },
  },
  {
    method: 'GET', path: '/users/me', auth: 'user',
    handler: async (r) => {
      // The answer depends only on the user's row and their newest message: serialised once
      // per change of either, it is the cheapest authenticated call clients make at startup.
      const key = `${identityVersion()}:${messageVersion()}`;
      let cache = meCache.get(r.ctx.store.db);
      if (!cache) meCache.set(r.ctx.store.db, (cache = new Map()));
      const hit = cache.get(r.user.id);
      if (hit && hit.key === key) return hit.body;
      // Read after taking the key: a change after this read moves the version past the key.
      const me = (await users.findById(r.ctx.store.db, r.user.id)) ?? r.user;
      const body = new PreSerialized(JSON.stringify({
        result: 'success', msg: '',
        ...presentUser(me, { clientGravatar: false, showDeliveryEmail: true, profileData: {} }),
        avatar_url: avatarUrl(me, false),
        max_message_id: await maxMessageIdFor(r.ctx.store.db, r.user.id),
      }));
      if (cache.size >= 100_000) cache.clear();
      cache.set(r.user.id, { key, body });
      return body;
    },
  },
  {
    method: 'DELETE', path: '/users/me', auth: 'user',
    handler: async (r) => {
      await transact(r.ctx, (tx) => doDeactivateUser(tx, r.user));
      return {};
    },
  },
  {
    method: 'POST', path: '/users/me/api_key/regenerate', auth: 'user',
    handler: async (r) => ({ api_key: await transact(r.ctx, (tx) => doRegenerateApiKey(tx, r.user)) }),
  },
  {
    method: 'GET', path: '/users/:user_id', auth: 'user',
    handler: async (r) => ({ user: presentUser(await targetOf(r), presentOpts(r)) }),
  },
  {
    method: 'POST', path: '/users', auth: 'user',
    handler: async (r) => {
      if (r.user.role > Role.ADMINISTRATOR) throw badRequest('User not authorized to create users');
      const email = r.params.str('email');
      const password = r.params.str('password');
      const fullName = r.params.str('full_name');
      const user = await transact(r.ctx, (tx) => doCreateUser(tx, r.realm, { email, password, fullName }));
      return { user_id: user.id };
    },
  },
  {
    method: 'PATCH', path: '/users/:user_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      const fullName = r.params.optStr('full_name');
      const role = r.params.optInt('role');
      await transact(r.ctx, async (tx) => {
        const target = await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true });
        if (fullName !== undefined) await doChangeFullName(tx, target, fullName);
        if (role !== undefined) await doChangeRole(tx, r.user, target, role);
      });
      return {};
    },
  },
  {
    method: 'DELETE', path: '/users/:user_id', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      await transact(r.ctx, async (tx) => doDeactivateUser(tx, await accessUserById(tx.db, r.user, id, { forAdmin: true })));
      return {};
    },
  },
  {
    method: 'POST', path: '/users/:user_id/reactivate', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'user_id');
      await transact(r.ctx, async (tx) =>
        doReactivateUser(tx, r.realm, await accessUserById(tx.db, r.user, id, { allowDeactivated: true, allowBots: true, forAdmin: true })));
      return {};
    },
  },
  {
    method: 'POST', path: '/bots', auth: 'user',
    handler: async (r) => {
      requireNotGuest(r.user);
      const fullName = r.params.str('full_name');
      const shortName = r.params.str('short_name');
      const botType = r.params.optInt('bot_type') ?? 1;
      const bot = await transact(r.ctx, (tx) => doCreateBot(tx, r.ctx.config, r.realm, r.user, { fullName, shortName, botType }));
      return {
        user_id: bot.id, api_key: bot.api_key, avatar_url: avatarUrl(bot, false),
        default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false,
      };
    },
  },
];
