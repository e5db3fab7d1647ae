import type { Route } from '../route.js';
import { updateUserStatus } from '../../actions/user-status.js';
import { botRequestsRefused } from '../../errors.js';

export const userStatusRoutes: Route[] = [
  {
    method: 'POST', path: '/users/me/status', auth: 'user',
    handler: async (r) => {
      // Zulip's human_users_only.
      if (r.user.is_bot === 1) throw botRequestsRefused();
      const away = r.params.optBool('away');
      await updateUserStatus(r.ctx, r.user, {
        away, statusText: r.params.optStr('status_text'), emojiName: r.params.optStr('emoji_name'),
        emojiCode: r.params.optStr('emoji_code'), reactionType: r.params.optStr('reaction_type'),
      });
      return {};
    },
  },
];
