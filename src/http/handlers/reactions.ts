import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Opt, Str } from '../../schemas/params.js';
import { addReaction, removeReaction } from '../../actions/reactions.js';

export const reactionRoutes: Route[] = [
  route({
    method: 'POST', path: '/messages/:message_id/reactions', auth: 'user', summary: 'Add an emoji reaction',
    params: { emoji_name: Str(), emoji_code: Opt(Str()), reaction_type: Opt(Str()) },
    answer: NoAnswer,
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      const req = { emojiName: r.args.emoji_name, emojiCode: r.args.emoji_code, reactionType: r.args.reaction_type };
      return done(addReaction(r.ctx, r.user, messageId, req));
    },
  }),
  route({
    method: 'DELETE', path: '/messages/:message_id/reactions', auth: 'user', summary: 'Remove an emoji reaction',
    params: { emoji_name: Opt(Str()), emoji_code: Opt(Str()), reaction_type: Opt(Str()) },
    answer: NoAnswer,
    handler: async (r) => {
      const messageId = pathInt(r, 'message_id');
      const req = { emojiName: r.args.emoji_name, emojiCode: r.args.emoji_code, reactionType: r.args.reaction_type };
      return done(removeReaction(r.ctx, r.user, messageId, req));
    },
  }),
];
