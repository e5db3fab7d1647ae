import { done, NoAnswer, route, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import { addRealmEmoji, removeRealmEmoji, MAX_EMOJI_FILE_SIZE_MIB } from '../../actions/realm-emoji.js';
import { emojiImage, realmEmojiDict } from '../../reads/realm-emoji.js';
import { contentTypeOf } from '../../lib/uploads.js';
import { filesOf } from './uploads.js';
import { WireRealmEmojiDict } from '../../schemas/wire.js';

export const realmEmojiRoutes: Route[] = [
  route({
    method: 'GET', path: '/realm/emoji', auth: 'user', summary: 'Get custom emoji', answer: Type.Object({ emoji: WireRealmEmojiDict }),
    handler: async (r) => ({ emoji: await realmEmojiDict(r.ctx.store.db, r.realm.id) }),
  }),
  route({
    method: 'POST', path: '/realm/emoji/:emoji_name', auth: 'user', streamsFiles: true, summary: 'Upload a custom emoji', answer: NoAnswer,
    handler: async (r) => done(addRealmEmoji(r.ctx, r.realm, r.user, r.path.emoji_name ?? '', filesOf(r.req, MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024))),
  }),
  route({
    method: 'DELETE', path: '/realm/emoji/:emoji_name', auth: 'user', summary: 'Deactivate a custom emoji', answer: NoAnswer,
    handler: async (r) => done(removeRealmEmoji(r.ctx, r.realm, r.user, r.path.emoji_name ?? '')),
  }),
  // The images themselves, public as Zulip serves avatars: an emoji shows in notifications
  // and in clients that fetch images without credentials. The image's bytes (or an HTML
  // 404 page): no JSON answer.
  route({
    method: 'GET', path: '/user_avatars/:realm_id/emoji/images/*', prefix: '', auth: 'none', summary: "Get a custom emoji's image",
    handler: async (r) => {
      const path = `${r.path.realm_id ?? ''}/emoji/images/${r.path['*'] ?? ''}`;
      const body = await emojiImage(r.ctx, path);
      if (!body) {
        void r.reply.status(404).type('text/html; charset=utf-8').send('<p>File not found.</p>');
        return {};
      }
      await r.reply.header('content-type', contentTypeOf(path)).header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(body);
      return {};
    },
  }),
];
