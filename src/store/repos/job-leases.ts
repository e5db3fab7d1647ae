import type { Q } from '../rows.js';
import type { JobLeaseRow } from '../schema.js';

export type { JobLeaseRow };

/** The background jobs' leases (migration 070); times in milliseconds. */
export const jobLeases = {
  /**
   * Takes the job's lease for `holder` until `until`: true for the one node whose update
   * changed the row. Taken when it has expired (a finished run's next turn has come, or a
   * dead holder's lease lapsed); with `early`, also when no node is running the job.
   */
  take: async (q: Q, name: string, holder: string, now: number, until: number, early = false): Promise<boolean> => {
    // A job never run has no row yet: one due at once (two nodes inserting it, one wins, neither fails).
    await q.insertInto('job_lease').values({ name, holder: null, expires: 0 })
      .onConflict((oc) => oc.column('name').doNothing()).execute();
    const r = await q.updateTable('job_lease').set({ holder, expires: until }).where('name', '=', name)
      .where((eb) => early ? eb.or([eb('expires', '<=', now), eb('holder', 'is', null)]) : eb('expires', '<=', now))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Extends the holder's lease; false when it is no longer theirs (it lapsed and another node took it). */
  renew: async (q: Q, name: string, holder: string, until: number): Promise<boolean> => {
    const r = await q.updateTable('job_lease').set({ expires: until }).where('name', '=', name).where('holder', '=', holder).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** Gives the lease up, the job next due at `nextDue`; nothing when the holder no longer has it. */
  release: async (q: Q, name: string, holder: string, nextDue: number): Promise<void> => {
    await q.updateTable('job_lease').set({ holder: null, expires: nextDue }).where('name', '=', name).where('holder', '=', holder).execute();
  },

  findByName: (q: Q, name: string): Promise<JobLeaseRow | undefined> =>
    q.selectFrom('job_lease').selectAll().where('name', '=', name).executeTakeFirst(),
};
