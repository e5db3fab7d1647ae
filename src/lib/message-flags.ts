/** Zulip's UserMessage.flags bit order (zerver/models.py); the wire uses the names. */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  // Zulip's stream_wildcard_mentioned since level 224, and topic_wildcard_mentioned (bit 32,
  // Zulip's old summarize_in_home, never set by Parley); flagsFromMask names them by level.
  wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  summarize_in_stream: 64,
  force_expand: 128,
  force_collapse: 256,
  has_alert_word: 512,
  historical: 1024,
  is_private: 2048,
  active_mobile_push_notification: 4096,
} as const;

export type FlagName = keyof typeof FLAG_BITS;

// Internal bookkeeping bits Zulip never shows clients.
const HIDDEN = FLAG_BITS.is_private | FLAG_BITS.active_mobile_push_notification
  | FLAG_BITS.summarize_in_stream | FLAG_BITS.force_expand | FLAG_BITS.force_collapse;

const ORDER = Object.entries(FLAG_BITS) as Array<[FlagName, number]>;

/** Level 224 split wildcard_mentioned into stream_wildcard_mentioned and topic_wildcard_mentioned. */
export const WILDCARD_FLAGS_LEVEL = 224;

/** Every mention bit: is:mentioned and the unread mentions count them all. */
export const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * The wire `flags` for a user_message bitmask; null (no row) is a historical message. From
 * level 224 the wildcard bits are stream_wildcard_mentioned and topic_wildcard_mentioned, with
 * the deprecated wildcard_mentioned beside them when either is set (Zulip keeps it for older
 * clients); before, wildcard_mentioned alone.
 */
export function flagsFromMask(mask: number | null, featureLevel = 122): string[] {
  if (mask === null) return ['read', 'historical'];
  const out: string[] = [];
  const split = featureLevel >= WILDCARD_FLAGS_LEVEL;
  const wildcard = (mask & (FLAG_BITS.wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
  for (const [name, bit] of ORDER) {
    if ((mask & bit) === 0 || (bit & HIDDEN) !== 0) continue;
    if (bit === FLAG_BITS.wildcard_mentioned) out.push(split ? 'stream_wildcard_mentioned' : name);
    else if (bit === FLAG_BITS.topic_wildcard_mentioned) {
      if (split) out.push(name);
      else if ((mask & FLAG_BITS.wildcard_mentioned) === 0) out.push('wildcard_mentioned');
    } else out.push(name);
  }
  if (split && wildcard) out.push('wildcard_mentioned');
  return out;
}

/**
 * Every flag name POST /messages/flags knows (the others are invalid): the bits' names, the
 * level-224 name of the stream wildcard bit, and summarize_in_home, a flag of level 122 whose bit
 * now holds topic wildcards (never editable either way).
 */
export const API_FLAG_NAMES: ReadonlySet<string> = new Set([...Object.keys(FLAG_BITS), 'stream_wildcard_mentioned', 'summarize_in_home']);

/** The flags a user may set or clear through POST /messages/flags. */
export const USER_SETTABLE = new Set<FlagName>(['read', 'starred', 'collapsed']);

/** Bookkeeping flags that do not exist for the API: POST /messages/flags calls them invalid, as Zulip does. */
export const NON_API = new Set<FlagName>(['is_private', 'active_mobile_push_notification']);

/** A user's flags on a message they may read but never received (no row): Zulip's DEFAULT_HISTORICAL_FLAGS. */
export const HISTORICAL_DEFAULT = FLAG_BITS.read | FLAG_BITS.historical;
