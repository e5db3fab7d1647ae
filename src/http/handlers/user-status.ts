import { NoAnswer, route, type Route } from '../route.js';
import { Bool, Opt, Str } from '../../schemas/params.js';
import { updateUserStatus } from '../../actions/user-status.js';
import { botRequestsRefused } from '../../errors.js';

export const userStatusRoutes: Route[] = [
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
