import type { Route } from '../route.js';
import { writeAlone } from '../../actions/transaction.js';
import { accessUserByEmail, accessUserById } from '../../access/user.js';
import { badRequest, botRequestsRefused, noSuchUser } from '../../errors.js';
import { clientName } from '../../lib/client-name.js';
import { checkPresenceStatus, doUpdatePresence } from '../../actions/presence-update.js';
import { presenceAnswerJson, presenceDict, OFFLINE_THRESHOLD_SECS } from '../../presenters/presence.js';
import { presenceOf, presencesJson } from '../../reads/presence.js';
import { PreSerialized } from '../route.js';

export const presenceRoutes: Route[] = [
  {
    method: 'POST', path: '/users/me/presence', auth: 'user',
    handler: async (r) => {
      if (r.user.is_bot === 1) throw botRequestsRefused();
      const status = checkPresenceStatus(r.params.str('status'));
      const pingOnly = r.params.bool('ping_only', false);
      r.params.bool('new_user_input', false);
      const slim = r.params.bool('slim_presence', false);
      const client = clientName(r.params.optStr('client'), r.req.headers['user-agent']);
      const now = Date.now() / 1000;
      await writeAlone(r.ctx, (tx) => doUpdatePresence(tx, r.realm, r.user, status, client, Math.floor(now)));
      if (pingOnly) return {};
      return new PreSerialized(presenceAnswerJson(await presencesJson(r.ctx.store.db, r.realm, slim, Math.floor(now)), now));
    },
  },
  {
    method: 'GET', path: '/realm/presence', auth: 'user',
    handler: async (r) => {
      const now = Date.now() / 1000;
      return new PreSerialized(presenceAnswerJson(await presencesJson(r.ctx.store.db, r.realm, r.params.bool('slim_presence', false), Math.floor(now)), now));
    },
  },
  {
    method: 'GET', path: '/users/:user_id_or_email/presence', auth: 'user',
    handler: async (r) => {
      const key = r.path.user_id_or_email ?? '';
      const target = /^\d+$/.test(key)
        ? await accessUserById(r.ctx.store.db, r.user, Number(key), { allowBots: true, allowDeactivated: true })
        : await accessUserByEmail(r.ctx.store.db, r.user, key);
      if (target.is_active !== 1) throw noSuchUser();
      if (target.is_bot === 1) throw badRequest('Presence is not supported for bot users.');
      const row = await presenceOf(r.ctx.store.db, target);
      if (!row) throw badRequest(`No presence data for ${target.email}`);
      const now = Math.floor(Date.now() / 1000);
      // This endpoint shows status and timestamp only, and says offline after the threshold.
      const dict = presenceDict(row, now) as Record<string, { status: string; timestamp: number }>;
      const presence: Record<string, { status: string; timestamp: number }> = {};
      for (const [k, v] of Object.entries(dict)) presence[k] = { status: v.status, timestamp: v.timestamp };
      if (now - presence.aggregated!.timestamp > OFFLINE_THRESHOLD_SECS) presence.aggregated!.status = 'offline';
      return { presence };
    },
  },
];
