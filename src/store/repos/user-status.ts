import type { Q, UserStatusRow } from '../rows.js';

/** The fields a status update sets; absent ones keep their stored value. */
export type UserStatusChange = Partial<Pick<UserStatusRow, 'status_text' | 'away' | 'emoji_name' | 'emoji_code' | 'reaction_type'>>;

export const userStatuses = {
  findByUser: (q: Q, userId: number): Promise<UserStatusRow | undefined> =>
    q.selectFrom('user_status').selectAll().where('user_id', '=', userId).executeTakeFirst(),

  /** Statuses of the realm's active users that say anything (all-default rows left out, as Zulip does). */
  listByRealm: (q: Q, realmId: number): Promise<UserStatusRow[]> =>
    q.selectFrom('user_status').innerJoin('users', 'users.id', 'user_status.user_id')
      .selectAll('user_status')
      .where('user_status.realm_id', '=', realmId).where('users.is_active', '=', 1)
      .where((eb) => eb.or([
        eb('user_status.away', '<>', 0), eb('user_status.status_text', '<>', ''), eb('user_status.emoji_name', '<>', ''),
        eb('user_status.emoji_code', '<>', ''), eb('user_status.reaction_type', '<>', 'unicode_emoji'),
      ]))
      .orderBy('user_status.user_id').execute(),

  /** Creates the user's row or changes the given fields of it (Zulip's update_or_create). */
  upsert: async (q: Q, userId: number, realmId: number, change: UserStatusChange, timestamp: number): Promise<void> => {
    await q.insertInto('user_status').values({ user_id: userId, realm_id: realmId, timestamp, ...change })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ timestamp, ...change })).execute();
  },
};
