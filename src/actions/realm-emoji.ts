import { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realmEmoji } from '../store/repos/realm-emoji.js';
import { users } from '../store/repos/users.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { requireNotGuest } from '../access/user.js';
import { presentRealmEmojiDict, emojiStillKey, emojiStorageKey } from '../presenters/realm-emoji.js';
import { processEmoji } from '../uploads/emoji-image.js';
import { emojiCodeForName } from '../emoji/index.js';
import { isAdminRole } from '../lib/roles.js';
import { discard, type IncomingFile } from './attachment-upload.js';
import {
  badImage, customEmojiExists, emojiDoesNotExist, emojiNotFound, emojiNameInvalid, emojiNameMissing, emojiNotAuthor, emojiOneFile, emojiOverrideAdminsOnly,
  insufficientPermission, uploadTooLarge,
} from '../errors.js';

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

/** Zulip 5's upload_emoji name handling and check_valid_emoji_name. */
export function checkEmojiName(raw: string): string {
  const name = raw.trim().replace(/ /g, '_');
  if (name === '') throw emojiNameMissing();
  if (!/^[0-9a-z.\-_]+$/.test(name) || /[.\-_]$/.test(name)) throw emojiNameInvalid();
  return name;
}

/** The whole dictionary goes to every active user of the organization (Zulip's notify_realm_emoji). */
async function notifyRealmEmoji(tx: Tx, realmId: number): Promise<void> {
  const dict = presentRealmEmojiDict(await realmEmoji.listByRealm(tx.db, realmId));
  tx.notify({ type: 'realm_emoji', op: 'update', realm_emoji: dict as never }, await users.listActiveIdsInRealm(tx.db, realmId), realmId);
}

/**
 * The one file of the request, read whole (its size is bounded: the parser stops it at the
 * route's limit); extra files are drained. Avatars read theirs the same way.
 */
export async function readOneFile(files: AsyncIterable<IncomingFile>): Promise<{ count: number; data?: Buffer; fileName?: string; contentType?: string | undefined; tooLarge: boolean }> {
  let count = 0;
  let data: Buffer | undefined;
  let contentType: string | undefined;
  let fileName = '';
  let tooLarge = false;
  for await (const file of files) {
    count += 1;
    if (count > 1) {
      await discard(file);
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    data = Buffer.concat(chunks);
    contentType = file.contentType;
    fileName = file.filename;
    tooLarge = file.truncated();
  }
  return { count, ...(data ? { data } : {}), fileName, contentType, tooLarge };
}

/** POST /realm/emoji/{emoji_name} (Zulip 5's upload_emoji and check_add_realm_emoji), checks in Zulip's order. */
export async function addRealmEmoji(ctx: AppContext, realm: RealmRow, user: UserRow, rawName: string, files: AsyncIterable<IncomingFile>): Promise<void> {
  requireNotGuest(user);
  const name = checkEmojiName(rawName);
  // Level 307: can_add_custom_emoji_group (add_custom_emoji_policy is kept equal to it).
  if (!await hasRealmGroupPermission(ctx.store.db, realm, user, 'can_add_custom_emoji_group')) throw insufficientPermission();
  if (await realmEmoji.findActiveByName(ctx.store.db, realm.id, name)) throw customEmojiExists();
  const { count, data, tooLarge } = await readOneFile(files);
  if (count !== 1 || !data) throw emojiOneFile();
  if (emojiCodeForName(name) !== undefined && !isAdminRole(user.role)) throw emojiOverrideAdminsOnly();
  if (tooLarge) throw uploadTooLarge(MAX_EMOJI_FILE_SIZE_MIB);
  const image = await processEmoji(data);
  if (!image) throw badImage();
  await transact(ctx, async (tx) => {
    // Two uploads of one name at once: the later one finds the earlier here.
    if (await realmEmoji.findActiveByName(tx.db, realm.id, name)) throw customEmojiExists();
    const id = await realmEmoji.insert(tx.db, { realm_id: realm.id, name, author_id: user.id });
    // Zulip names the file by the emoji's id: a new upload of a name never reuses an old URL.
    const fileName = `${id}${image.ext}`;
    const key = emojiStorageKey(realm.id, fileName);
    await ctx.storage.put(key, Readable.from([image.image]), { contentType: image.contentType });
    await ctx.storage.put(`${key}.original`, Readable.from([data]), { contentType: 'application/octet-stream' });
    if (image.still) await ctx.storage.put(emojiStillKey(realm.id, fileName), Readable.from([image.still]), { contentType: 'image/png' });
    await realmEmoji.update(tx.db, id, { file_name: fileName, is_animated: image.animated ? 1 : 0 });
    await notifyRealmEmoji(tx, realm.id);
  });
}

/** DELETE /realm/emoji/{emoji_name}: deactivates (reactions keep naming it); administrators, or its author. */
export async function removeRealmEmoji(ctx: AppContext, realm: RealmRow, user: UserRow, name: string): Promise<void> {
  const emoji = await realmEmoji.findActiveByName(ctx.store.db, realm.id, name);
  // Zulip's ResourceNotFoundError from feature level 190: the same message, HTTP 404.
  if (!emoji) throw ctx.config.featureLevel >= 190 ? emojiNotFound(name) : emojiDoesNotExist(name);
  if (!isAdminRole(user.role) && emoji.author_id !== user.id) throw emojiNotAuthor();
  await transact(ctx, async (tx) => {
    await realmEmoji.update(tx.db, emoji.id, { deactivated: 1 });
    await notifyRealmEmoji(tx, realm.id);
  });
}
