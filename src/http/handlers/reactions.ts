import { pathInt, type Route } from '../route.js';
import { addReaction, removeReaction } from '../../actions/reactions.js';

export const reactionRoutes: Route[] = [
  {
    method: 'POST', path: '/messages/:message_id/reactions', auth: 'user',
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      const req = { emojiName: r.params.str('emoji_name'), emojiCode: r.params.optStr('emoji_code'), reactionType: r.params.optStr('reaction_type') };
      await addReaction(r.ctx, r.user, messageId, req);
      return {};
    },
  },
  {
    method: 'DELETE', path: '/messages/:message_id/reactions', auth: 'user',
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      const req = { emojiName: r.params.optStr('emoji_name'), emojiCode: r.params.optStr('emoji_code'), reactionType: r.params.optStr('reaction_type') };
      await removeReaction(r.ctx, r.user, messageId, req);
      return {};
    },
  },
];
