import type { RealmEmojiRow } from '../rows.js';
import type { WireRealmEmoji, WireRealmEmojiDict } from '../schemas/wire.js';

export type { WireRealmEmoji };

/**
 * Where a custom emoji's image is served: Zulip's path under /user_avatars (public, as
 * Zulip serves avatars), and for an animated one a still PNG of its first frame.
 */
export const emojiStorageKey = (realmId: number, fileName: string) => `${realmId}/emoji/images/${fileName}`;
export const emojiStillKey = (realmId: number, fileName: string) => `${realmId}/emoji/images/still/${fileName.replace(/\.[^.]*$/, '')}.png`;
export const emojiUrl = (key: string) => `/user_avatars/${key}`;

/** One entry of GET /realm/emoji and register's `realm_emoji` (Zulip 5; `still_url` always present from level 113). */
export function presentRealmEmoji(e: RealmEmojiRow): WireRealmEmoji {
  const file = e.file_name ?? '';
  return {
    id: String(e.id), name: e.name, source_url: emojiUrl(emojiStorageKey(e.realm_id, file)),
    still_url: e.is_animated === 1 ? emojiUrl(emojiStillKey(e.realm_id, file)) : null,
    deactivated: e.deactivated === 1, author_id: e.author_id,
  };
}

/** The whole dictionary, keyed by id, deactivated emoji included (old reactions still name them). */
export function presentRealmEmojiDict(rows: RealmEmojiRow[]): WireRealmEmojiDict {
  const out: WireRealmEmojiDict = {};
  // Rows still being created (no file yet) are not shown.
  for (const e of rows) if (e.file_name !== null) out[String(e.id)] = presentRealmEmoji(e);
  return out;
}
