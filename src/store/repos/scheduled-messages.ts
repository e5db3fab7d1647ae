import type { Insertable, Selectable } from 'kysely';
import type { ScheduledMessageTable } from '../schema.js';
import type { Q } from '../rows.js';

export type ScheduledMessageRecord = Selectable<ScheduledMessageTable>;
type NewScheduledMessage = Omit<Insertable<ScheduledMessageTable>, 'id'>;
export type ScheduledMessageFields = Pick<ScheduledMessageRecord, 'type' | 'stream_id' | 'recipient' | 'topic' | 'content' | 'rendered_content' | 'client' | 'scheduled_timestamp'>;

// PostgreSQL answers bigint columns as text.
const numeric = (r: ScheduledMessageRecord): ScheduledMessageRecord => ({
  ...r, scheduled_timestamp: Number(r.scheduled_timestamp), claimed_until: r.claimed_until === null ? null : Number(r.claimed_until),
});

export const scheduledMessages = {
  /** The user's undelivered ones (failed ones included), by delivery time, as Zulip lists them. */
  listUndeliveredOfUser: async (q: Q, userId: number): Promise<ScheduledMessageRecord[]> =>
    (await q.selectFrom('scheduled_message').selectAll().where('sender_id', '=', userId).where('delivered', '=', 0)
      .orderBy('scheduled_timestamp').orderBy('id').execute()).map(numeric),

  /** Only if it is this user's: another's is as missing as one that never was. */
  findOfUser: async (q: Q, userId: number, id: number): Promise<ScheduledMessageRecord | undefined> => {
    const r = await q.selectFrom('scheduled_message').selectAll().where('id', '=', id).where('sender_id', '=', userId).executeTakeFirst();
    return r && numeric(r);
  },

  findById: async (q: Q, id: number): Promise<ScheduledMessageRecord | undefined> => {
    const r = await q.selectFrom('scheduled_message').selectAll().where('id', '=', id).executeTakeFirst();
    return r && numeric(r);
  },

  insert: async (q: Q, row: NewScheduledMessage): Promise<number> =>
    (await q.insertInto('scheduled_message').values(row).returning('id').executeTakeFirstOrThrow()).id,

  /** An edit: the new fields, and a failed one is pending again. */
  update: async (q: Q, id: number, fields: ScheduledMessageFields): Promise<void> => {
    await q.updateTable('scheduled_message').set({ ...fields, failed: 0, failure_message: null, claimed_until: null }).where('id', '=', id).execute();
  },

  deleteById: async (q: Q, id: number): Promise<void> => {
    await q.deleteFrom('scheduled_message').where('id', '=', id).execute();
  },

  /** Ids due at `now` that no node holds a lease on, oldest first. */
  listDue: async (q: Q, now: number, limit: number): Promise<number[]> =>
    (await q.selectFrom('scheduled_message').select('id').where('delivered', '=', 0).where('failed', '=', 0)
      .where('scheduled_timestamp', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('scheduled_timestamp').orderBy('id').limit(limit).execute()).map((r) => r.id),

  /**
   * Takes the lease on a due one until `until`: true for the one node whose update changed
   * the row. Only saves the others the work: delivery itself is guarded by the send's commit.
   */
  lease: async (q: Q, id: number, now: number, until: number): Promise<boolean> => {
    const r = await q.updateTable('scheduled_message').set({ claimed_until: until })
      .where('id', '=', id).where('delivered', '=', 0).where('failed', '=', 0)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Marks a pending one failed; false when it was delivered, failed or deleted meanwhile. */
  markFailed: async (q: Q, id: number, message: string): Promise<boolean> => {
    const r = await q.updateTable('scheduled_message').set({ failed: 1, failure_message: message, claimed_until: null })
      .where('id', '=', id).where('delivered', '=', 0).where('failed', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
};
