import { route, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import { SERVED_AVATAR_FILE, deleteAvatar, uploadAvatar } from '../../actions/avatar.js';
import { MAX_AVATAR_FILE_SIZE_MIB } from '../../uploads/avatar-image.js';
import { filesOf } from './uploads.js';

const AvatarAnswer = Type.Object({ avatar_url: Type.String({ description: "The user's new avatar URL: relative for an uploaded one, Gravatar's otherwise" }) });

export const avatarRoutes: Route[] = [
  route({
    method: 'POST', path: '/users/me/avatar', auth: 'user', streamsFiles: true, summary: 'Upload your avatar', answer: AvatarAnswer,
    handler: (r) => uploadAvatar(r.ctx, r.realm, r.user, filesOf(r.req, MAX_AVATAR_FILE_SIZE_MIB * 1024 * 1024)),
  }),
  route({
    method: 'DELETE', path: '/users/me/avatar', auth: 'user', summary: 'Delete your avatar (back to Gravatar)', answer: AvatarAnswer,
    handler: (r) => deleteAvatar(r.ctx, r.realm, r.user),
  }),
  // Public, as Zulip serves avatars (notifications and image loaders fetch them without
  // credentials): the key is unguessable and new at each upload, so that what is at a URL
  // never changes and may be cached for good. The image (or an HTML 404 page): no JSON answer.
  route({
    method: 'GET', path: '/user_avatars/:realm_id/:file', prefix: '', auth: 'none', summary: "Get a user's uploaded avatar",
    handler: async (r) => {
      const realmId = r.path.realm_id ?? '';
      const file = r.path.file ?? '';
      const body = /^[0-9]+$/.test(realmId) && SERVED_AVATAR_FILE.test(file) ? await r.ctx.storage.get(`${realmId}/${file}`) : undefined;
      if (!body) {
        void r.reply.status(404).type('text/html; charset=utf-8').send('<p>File not found.</p>');
        return {};
      }
      await r.reply.header('content-type', 'image/png').header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff').send(body);
      return {};
    },
  }),
];
