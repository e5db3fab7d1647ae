import { route, type Route } from '../route.js';
import { Type } from '../../schemas/params.js';
import { deleteRealmIcon, uploadRealmIcon } from '../../actions/realm-icon.js';
import { MAX_ICON_FILE_SIZE_MIB } from '../../lib/realm-icon.js';
import { filesOf } from './uploads.js';

const IconAnswer = Type.Object({ icon_url: Type.String({ description: "The organization's new icon URL: relative for an uploaded one, Gravatar's otherwise" }) });

// Zulip's require_realm_admin: the role is checked before the files are read.
export const realmIconRoutes: Route[] = [
  route({
    method: 'POST', path: '/realm/icon', auth: 'user', streamsFiles: true, requires: 'admin', summary: 'Upload the organization icon', answer: IconAnswer,
    handler: (r) => uploadRealmIcon(r.ctx, r.realm, filesOf(r.req, MAX_ICON_FILE_SIZE_MIB * 1024 * 1024)),
  }),
  route({
    method: 'DELETE', path: '/realm/icon', auth: 'user', requires: 'admin', summary: 'Remove the organization icon (back to the default)', answer: IconAnswer,
    handler: (r) => deleteRealmIcon(r.ctx, r.realm),
  }),
  // Public as avatars are (src/http/handlers/avatars.ts); the URL's version changes at each upload.
  route({
    method: 'GET', path: '/user_avatars/:realm_id/realm/icon.png', prefix: '', auth: 'none', summary: "Get the organization's uploaded icon",
    handler: async (r) => {
      const realmId = r.path.realm_id ?? '';
      const body = /^[0-9]+$/.test(realmId) ? await r.ctx.storage.get(`${realmId}/realm/icon.png`) : undefined;
      if (!body) {
        void r.reply.status(404).type('text/html; charset=utf-8').send('<p>File not found.</p>');
        return {};
      }
      await r.reply.header('content-type', 'image/png').header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff').send(body);
      return {};
    },
  }),
];
