import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import type { Storage } from '../uploads/storage.js';
import { users } from '../store/repos/users.js';
import { avatarStorageBase, avatarUrl } from '../presenters/user.js';
import { realmSettings } from '../lib/realm-settings.js';
import { isAdminRole } from '../lib/roles.js';
import { contentTypeOf } from '../lib/uploads.js';
import { AVATAR_IMAGE_TYPES, MAX_AVATAR_FILE_SIZE_MIB, resizeAvatar } from '../uploads/avatar-image.js';

export { MAX_AVATAR_FILE_SIZE_MIB };
import { notifyRealmUser } from './user-notify.js';
import { notifyBotUpdate } from './bot-notify.js';
import { readOneFile } from './realm-emoji.js';
import type { IncomingFile } from './attachment-upload.js';
import { avatarChangesDisabled, avatarOneFile, badImage, invalidImageFormat, uploadTooLarge } from '../errors.js';

/** The objects of an uploaded avatar: what Zulip's write_avatar_images writes. */
export interface AvatarKeys {
  /** The bytes as uploaded (Zulip's `.original`): what an export copies out. */
  original: string;
  /** DEFAULT_AVATAR_SIZE, served as `/user_avatars/<key>.png`. */
  small: string;
  /** MEDIUM_AVATAR_SIZE, served as `/user_avatars/<key>-medium.png`. */
  medium: string;
}

/** Where `user`'s uploaded avatar is stored; undefined when they have none. */
export function avatarStorageKeys(user: Pick<UserRow, 'realm_id' | 'avatar_source' | 'avatar_key'>): AvatarKeys | undefined {
  const base = user.avatar_source === 'U' ? avatarStorageBase(user) : undefined;
  return base === undefined ? undefined : keysOf(base);
}

const keysOf = (base: string): AvatarKeys => ({ original: `${base}.original`, small: `${base}.png`, medium: `${base}-medium.png` });

/** The served files' names after `<realm_id>/`: Parley's keys are 40 hexadecimal digits, as Zulip's hashes. */
export const SERVED_AVATAR_FILE = /^[0-9a-f]{40}(-medium)?\.png$/;

/** Zulip's avatar_changes_disabled: administrators may still change their own. */
function checkMayChange(realm: RealmRow, user: UserRow): void {
  if (realmSettings(realm.settings).avatar_changes_disabled && !isAdminRole(user.role)) throw avatarChangesDisabled();
}

async function readImage(image: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(image)) return image;
  const chunks: Buffer[] = [];
  for await (const chunk of image) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Resizes and writes an avatar's three objects under a new unguessable key; answers the key
 * (after `<realm_id>/`). Nothing refers to them until a row names the key.
 */
async function writeAvatarFiles(storage: Storage, realmId: number, data: Buffer, contentType: string): Promise<string> {
  const images = await resizeAvatar(data);
  if (!images) throw badImage();
  const key = crypto.randomBytes(20).toString('hex');
  const keys = keysOf(`${realmId}/${key}`);
  await storage.put(keys.original, Readable.from([data]), { contentType });
  await storage.put(keys.small, Readable.from([images.small]), { contentType: 'image/png' });
  await storage.put(keys.medium, Readable.from([images.medium]), { contentType: 'image/png' });
  return key;
}

async function deleteAvatarFiles(storage: Storage, keys: AvatarKeys | undefined): Promise<void> {
  if (!keys) return;
  await Promise.all([storage.delete(keys.original), storage.delete(keys.small), storage.delete(keys.medium)]);
}

/**
 * Zulip's do_change_avatar_fields: the source and key change, the version goes up by one,
 * and everyone who sees the user is told the new URLs (a bot's owners also as realm_bot).
 * Answers the updated row.
 */
export async function doChangeAvatarFields(tx: Tx, user: UserRow, source: 'G' | 'U', key: string | null, opts: { notify?: boolean } = {}): Promise<UserRow> {
  const updated: UserRow = { ...user, avatar_source: source, avatar_key: key, avatar_version: user.avatar_version + 1 };
  await users.update(tx.db, user.id, { avatar_source: source, avatar_key: key, avatar_version: updated.avatar_version });
  if (opts.notify === false) return updated;
  await notifyRealmUser(tx, user.realm_id, 'update', {
    user_id: user.id, avatar_source: source, avatar_url: avatarUrl(updated, false),
    avatar_url_medium: avatarUrl(updated, false, true), avatar_version: updated.avatar_version,
  });
  if (updated.is_bot === 1) await notifyBotUpdate(tx, updated, { avatar_url: avatarUrl(updated, false) });
  return updated;
}

export interface StoreAvatarOptions {
  /** The image's declared type, kept with the original (guessed from `fileName`, else octet-stream). */
  contentType?: string;
  fileName?: string;
  /** False for users no one is watching yet (an import): no events. */
  notify?: boolean;
}

/**
 * The importer's entry point: `image` (any format sharp decodes) becomes `user`'s uploaded
 * avatar in `tx`, as through POST /users/me/avatar without its request checks. Throws
 * badImage() for bytes that are no image. The files are written before the row changes and
 * are not removed if `tx` rolls back: a failed import removes its organization's storage
 * prefix (`<realm_id>/`), under which avatarStorageKeys() lies. Answers the updated row.
 */
export async function doStoreAvatar(tx: Tx, storage: Storage, user: UserRow, image: Buffer | Readable, opts: StoreAvatarOptions = {}): Promise<UserRow> {
  const contentType = opts.contentType ?? (opts.fileName !== undefined ? contentTypeOf(opts.fileName) : 'application/octet-stream');
  const key = await writeAvatarFiles(storage, user.realm_id, await readImage(image), contentType);
  const previous = avatarStorageKeys(user);
  const updated = await doChangeAvatarFields(tx, user, 'U', key, { notify: opts.notify ?? true });
  tx.onCommit(() => void deleteAvatarFiles(storage, previous).catch(() => undefined));
  return updated;
}

/** POST /users/me/avatar (Zulip's set_avatar_backend and upload_avatar_image), checks in Zulip's order. */
export async function uploadAvatar(ctx: AppContext, realm: RealmRow, user: UserRow, files: AsyncIterable<IncomingFile>): Promise<{ avatar_url: string }> {
  const { count, data, fileName, contentType: declared, tooLarge } = await readOneFile(files);
  if (count !== 1 || !data) throw avatarOneFile();
  checkMayChange(realm, user);
  if (tooLarge) throw uploadTooLarge(MAX_AVATAR_FILE_SIZE_MIB);
  // Zulip trusts the part's type; a client that sent none (or octet-stream) is judged by its file name.
  const contentType = declared && declared !== 'application/octet-stream' ? declared : contentTypeOf(fileName ?? '');
  if (!AVATAR_IMAGE_TYPES.has(contentType)) throw invalidImageFormat();
  const key = await writeAvatarFiles(ctx.storage, user.realm_id, data, contentType);
  let changed: { updated: UserRow; previous: AvatarKeys | undefined };
  try {
    changed = await transact(ctx, async (tx) => {
      const current = (await users.findById(tx.db, user.id)) ?? user;
      return { updated: await doChangeAvatarFields(tx, current, 'U', key), previous: avatarStorageKeys(current) };
    });
  } catch (err) {
    await deleteAvatarFiles(ctx.storage, keysOf(`${user.realm_id}/${key}`));
    throw err;
  }
  const { updated, previous } = changed;
  await deleteAvatarFiles(ctx.storage, previous).catch((err: unknown) => ctx.log.warn({ err }, 'old avatar files not removed'));
  return { avatar_url: avatarUrl(updated, false) };
}

/** DELETE /users/me/avatar (Zulip's delete_avatar_backend and do_delete_avatar_image): back to Gravatar. */
export async function deleteAvatar(ctx: AppContext, realm: RealmRow, user: UserRow): Promise<{ avatar_url: string }> {
  checkMayChange(realm, user);
  const { updated, previous } = await transact(ctx, async (tx) => {
    const current = (await users.findById(tx.db, user.id)) ?? user;
    return { updated: await doChangeAvatarFields(tx, current, 'G', null), previous: avatarStorageKeys(current) };
  });
  await deleteAvatarFiles(ctx.storage, previous).catch((err: unknown) => ctx.log.warn({ err }, 'avatar files not removed'));
  return { avatar_url: avatarUrl(updated, false) };
}
