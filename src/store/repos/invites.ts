import type { InviteRow, Q } from '../rows.js';

export const INVITE_STATUS = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

export const invites = {
  insert: async (q: Q, row: Omit<InviteRow, 'id' | 'status' | 'notify_referrer_on_join' | 'group_ids'> & { notify_referrer_on_join?: number; group_ids?: string }): Promise<number> => {
    const r = await q.insertInto('invite').values({ ...row, status: INVITE_STATUS.PENDING }).returning('id').executeTakeFirstOrThrow();
    return r.id;
  },

  findById: (q: Q, id: number): Promise<InviteRow | undefined> =>
    q.selectFrom('invite').selectAll().where('id', '=', id).executeTakeFirst(),

  findByKey: (q: Q, key: string): Promise<InviteRow | undefined> =>
    q.selectFrom('invite').selectAll().where('confirmation_key', '=', key).executeTakeFirst(),

  /** The realm's pending invites that have not expired, oldest first; `referredBy` narrows to one inviter's. */
  listPending: (q: Q, realmId: number, now: number, referredBy?: number): Promise<InviteRow[]> => {
    let sel = q.selectFrom('invite').selectAll().where('realm_id', '=', realmId).where('status', '=', INVITE_STATUS.PENDING)
      .where((eb) => eb.or([eb('expires', 'is', null), eb('expires', '>', now)]));
    if (referredBy !== undefined) sel = sel.where('referred_by', '=', referredBy);
    return sel.orderBy('id').execute();
  },

  /** Pending email invites to this address in this realm (they are used up together when one is accepted). */
  listPendingByEmail: (q: Q, realmId: number, emailLower: string): Promise<InviteRow[]> =>
    q.selectFrom('invite').selectAll().where('realm_id', '=', realmId).where('is_multiuse', '=', 0)
      .where('status', '=', INVITE_STATUS.PENDING).execute()
      .then((rows) => rows.filter((r) => (r.email ?? '').toLowerCase() === emailLower)),

  /** Moves a pending invite to `status`; false when it was no longer pending (a concurrent use). */
  finish: async (q: Q, id: number, status: number): Promise<boolean> =>
    Number((await q.updateTable('invite').set({ status }).where('id', '=', id).where('status', '=', INVITE_STATUS.PENDING)
      .executeTakeFirst()).numUpdatedRows) === 1,

  update: async (q: Q, id: number, fields: Partial<Pick<InviteRow, 'invited_at' | 'expires'>>): Promise<void> => {
    await q.updateTable('invite').set(fields).where('id', '=', id).execute();
  },
};
