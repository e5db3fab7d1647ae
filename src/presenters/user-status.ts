import type { UserStatusRow } from '../rows.js';

import type { WireUserStatus } from '../schemas/wire.js';

/** A status as register's `user_status` gives it (Zulip 5's format_user_status): only what is set. */
export type UserStatusInfo = WireUserStatus;

export function presentUserStatus(row: UserStatusRow): UserStatusInfo {
  const out: UserStatusInfo = {};
  if (row.away) out.away = true;
  if (row.status_text) out.status_text = row.status_text;
  if (row.emoji_name) {
    out.emoji_name = row.emoji_name;
    out.emoji_code = row.emoji_code;
    // Stored only as one of the three namespaces (the status action checks the emoji).
    out.reaction_type = row.reaction_type as NonNullable<WireUserStatus['reaction_type']>;
  }
  return out;
}

/** register's `muted_users` and the muted_users event: `{id, timestamp}` in the order muted. */
export const presentMutedUsers = (rows: Array<{ muted_user_id: number; date_muted: number }>): Array<{ id: number; timestamp: number }> =>
  rows.map((r) => ({ id: r.muted_user_id, timestamp: Number(r.date_muted) }));
