import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { doMuteUser, doUnmuteUser } from '../../actions/muted-users.js';
import { accessUserById } from '../../access/user.js';
import { cannotMuteSelf } from '../../errors.js';

/**
 * Who can be muted: deactivated users always; bots (system bots too, as Zulip's
 * access_user_by_id_including_cross_realm) from feature level 188, "No such user" before it.
 */
const mutable = (featureLevel: number) => ({ allowBots: featureLevel >= 188, allowDeactivated: true });

export const mutedUserRoutes: Route[] = [
  route({
    method: 'POST', path: '/users/me/muted_users/:muted_user_id', auth: 'user', summary: 'Mute a user', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'muted_user_id');
      if (id === r.user.id) throw cannotMuteSelf();
      const muted = await accessUserById(r.ctx.store.db, r.user, id, mutable(r.ctx.config.featureLevel));
      return done(transact(r.ctx, (tx) => doMuteUser(tx, r.user, muted)));
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/muted_users/:muted_user_id', auth: 'user', summary: 'Unmute a user', answer: NoAnswer,
    handler: async (r) => {
      const muted = await accessUserById(r.ctx.store.db, r.user, pathInt(r, 'muted_user_id'), mutable(r.ctx.config.featureLevel));
      return done(transact(r.ctx, (tx) => doUnmuteUser(tx, r.user, muted)));
    },
  }),
];
