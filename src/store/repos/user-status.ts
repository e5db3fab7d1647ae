import type { Q, UserStatusRow } from '../rows.js';
import { rowsWritten } from '../changes.js';

/** The fields a status update sets; absent ones keep their stored value. */
export type UserStatusChange = Partial<Pick<UserStatusRow, 'status_text' | 'away' | 'emoji_name' | 'emoji_code' | 'reaction_type'>>;

export const userStatuses = {
  findByUser: (q: Q, userId: number): Promise<UserStatusRow | undefined> =>
    q.selectFrom('user_status').selectAll().where('user_id', '=', userId).executeTakeFirst(),

  /**
   * Statuses of the realm's active users that say anything (all-default rows left out, as Zulip
   * does), with the owner's settings: from level 148 `away` is the presence_enabled setting, so
   * a row whose fields are all default still counts when the setting is off (the caller decides).
   */
  listByRealm: (q: Q, realmId: number): Promise<Array<UserStatusRow & { user_settings: string }>> =>
    q.selectFrom('user_status').innerJoin('users', 'users.id', 'user_status.user_id')
      .selectAll('user_status').select('users.settings as user_settings')
      .where('user_status.realm_id', '=', realmId).where('users.is_active', '=', 1)
      .orderBy('user_status.user_id').execute(),

  /** Creates the user's row or changes the given fields of it (Zulip's update_or_create). */
  upsert: async (q: Q, userId: number, realmId: number, change: UserStatusChange, timestamp: number): Promise<void> => {
    await q.insertInto('user_status').values({ user_id: userId, realm_id: realmId, timestamp, ...change })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ timestamp, ...change })).execute();
    rowsWritten(q, 'user_status');
  },
};
