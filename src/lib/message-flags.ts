/** Zulip's UserMessage.flags bit order (zerver/models.py); the wire uses the names. */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  wildcard_mentioned: 16,
  summarize_in_home: 32,
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
  | FLAG_BITS.summarize_in_home | FLAG_BITS.summarize_in_stream | FLAG_BITS.force_expand | FLAG_BITS.force_collapse;

const ORDER = Object.entries(FLAG_BITS) as Array<[FlagName, number]>;

/** The wire `flags` for a user_message bitmask; null (no row) is a historical message. */
export function flagsFromMask(mask: number | null): string[] {
  if (mask === null) return ['read', 'historical'];
  const out: string[] = [];
  for (const [name, bit] of ORDER) if ((mask & bit) !== 0 && (bit & HIDDEN) === 0) out.push(name);
  return out;
}

/** The flags a user may set or clear through POST /messages/flags. */
export const USER_SETTABLE = new Set<FlagName>(['read', 'starred', 'collapsed']);

/** Bookkeeping flags that do not exist for the API: POST /messages/flags calls them invalid, as Zulip does. */
export const NON_API = new Set<FlagName>(['is_private', 'active_mobile_push_notification']);

/** A user's flags on a message they may read but never received (no row): Zulip's DEFAULT_HISTORICAL_FLAGS. */
export const HISTORICAL_DEFAULT = FLAG_BITS.read | FLAG_BITS.historical;
