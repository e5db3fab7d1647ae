import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { transact } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { realmIconUrl } from '../presenters/realm.js';
import { MAX_ICON_FILE_SIZE_MIB, realmIconKeys } from '../lib/realm-icon.js';
import { contentTypeOf, DEFAULT_AVATAR_SIZE } from '../lib/uploads.js';
import { readOneFile } from './realm-emoji.js';
import type { IncomingFile } from './attachment-upload.js';
import sharp from 'sharp';
import { badImage, iconOneFile, uploadTooLarge } from '../errors.js';

/** Zulip's resize_avatar at DEFAULT_AVATAR_SIZE: a PNG square cropped about the centre; undefined for no image. */
async function resizeIcon(data: Buffer): Promise<Buffer | undefined> {
  try {
    return await sharp(data, { pages: 1 }).rotate()
      .resize(DEFAULT_AVATAR_SIZE, DEFAULT_AVATAR_SIZE, { fit: 'cover', position: 'centre' }).png().toBuffer();
  } catch {
    return undefined;
  }
}

/**
 * Zulip's do_change_icon_source: the source changes, the version goes up by one (a new URL,
 * so that caches never show the old picture), and every active user is told the new URL.
 * Kept in the realm's settings JSON (icon_source is one of them; icon_version beside it).
 */
async function changeIconSource(ctx: AppContext, realm: RealmRow, source: 'G' | 'U'): Promise<string> {
  return transact(ctx, async (tx) => {
    const current = (await realms.findById(tx.db, realm.id)) ?? realm;
    const own = JSON.parse(current.settings || '{}') as Record<string, unknown>;
    own.icon_source = source;
    own.icon_version = (typeof own.icon_version === 'number' ? own.icon_version : 1) + 1;
    const settings = JSON.stringify(own);
    await realms.update(tx.db, realm.id, { settings });
    const iconUrl = realmIconUrl({ ...current, settings });
    const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
    tx.notify({ type: 'realm', op: 'update_dict', property: 'icon', data: { icon_url: iconUrl, icon_source: source } }, audience, realm.id);
    return iconUrl;
  });
}

/** POST /realm/icon (Zulip's upload_icon): administrators only (the route checks), exactly one file. */
export async function uploadRealmIcon(ctx: AppContext, realm: RealmRow, files: AsyncIterable<IncomingFile>): Promise<{ icon_url: string }> {
  const { count, data, fileName, contentType: declared, tooLarge } = await readOneFile(files);
  if (count !== 1 || !data) throw iconOneFile();
  if (tooLarge) throw uploadTooLarge(MAX_ICON_FILE_SIZE_MIB);
  const image = await resizeIcon(data);
  if (!image) throw badImage();
  const contentType = declared && declared !== 'application/octet-stream' ? declared : contentTypeOf(fileName ?? '');
  const keys = realmIconKeys(realm.id);
  // Zulip's upload_icon_image: the bytes as uploaded beside the resized PNG that is served.
  await ctx.storage.put(keys.original, Readable.from([data]), { contentType });
  await ctx.storage.put(keys.icon, Readable.from([image]), { contentType: 'image/png' });
  return { icon_url: await changeIconSource(ctx, realm, 'U') };
}

/**
 * DELETE /realm/icon (Zulip's delete_icon_backend): back to the Gravatar identicon. As in
 * Zulip the files stay (a cached URL may still name them); the next upload overwrites them.
 */
export async function deleteRealmIcon(ctx: AppContext, realm: RealmRow): Promise<{ icon_url: string }> {
  return { icon_url: await changeIconSource(ctx, realm, 'G') };
}
