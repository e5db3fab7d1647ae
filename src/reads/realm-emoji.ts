import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Q } from '../store/rows.js';
import { realmEmoji } from '../store/repos/realm-emoji.js';
import { presentRealmEmojiDict, type WireRealmEmoji } from '../presenters/realm-emoji.js';

/** GET /realm/emoji and register's `realm_emoji`: public to the organization's members (Zulip's list_emoji). */
export async function realmEmojiDict(q: Q, realmId: number): Promise<Record<string, WireRealmEmoji>> {
  return presentRealmEmojiDict(await realmEmoji.listByRealm(q, realmId));
}

/**
 * A custom emoji's image (or its still) by path under /user_avatars/, public as Zulip's
 * avatar files are; undefined unless the path is one Parley writes (the kept originals
 * are not served).
 */
export async function emojiImage(ctx: AppContext, path: string): Promise<Readable | undefined> {
  if (!/^\d+\/emoji\/images\/(still\/)?\d+\.(gif|png|jpg|webp)$/.test(path)) return undefined;
  return ctx.storage.get(path);
}
