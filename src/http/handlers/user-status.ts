import { NoAnswer, pathInt, route, type Route } from '../route.js';
import { Bool, Opt, Str, Type } from '../../schemas/params.js';
import { accessUserById } from '../../access/user.js';
import { userStatusOf } from '../../reads/user-status.js';
import { WireUserStatus } from '../../schemas/wire.js';
import { updateUserStatus } from '../../actions/user-status.js';
import { botRequestsRefused } from '../../errors.js';

export const userStatusRoutes: Route[] = [
  route({
    // Feature level 262. As Zulip's get_status_backend: access_user_by_id without bots or deactivated users.
    method: 'GET', path: '/users/:user_id/status', auth: 'user', summary: "Get a user's status",
    answer: Type.Object({ status: WireUserStatus }),
    handler: async (r) => {
      const target = await accessUserById(r.ctx.store.db, r.user, pathInt(r, 'user_id'));
      return { status: await userStatusOf(r.ctx.store.db, target.id) };
    },
  }),
  route({
    method: 'POST', path: '/users/me/status', auth: 'user', summary: 'Update your status',
    params: { away: Opt(Bool()), status_text: Opt(Str()), emoji_name: Opt(Str()), emoji_code: Opt(Str()), reaction_type: Opt(Str()) },
    answer: NoAnswer,
    handler: async (r) => {
      // Zulip's human_users_only.
      if (r.user.is_bot === 1) throw botRequestsRefused();
      const away = r.args.away;
      await updateUserStatus(r.ctx, r.user, {
        away, statusText: r.args.status_text, emojiName: r.args.emoji_name,
        emojiCode: r.args.emoji_code, reactionType: r.args.reaction_type,
      });
      return {};
    },
  }),
];
