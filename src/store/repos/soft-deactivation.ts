import { sql } from 'kysely';
import type { Q, UserRow } from '../rows.js';
import { rowsWritten } from '../changes.js';
import { VisibilityPolicy } from '../../lib/visibility-policy.js';
import { FLAG_BITS } from '../../lib/message-flags.js';

/** An idle person's settings that still want stream messages recorded for them (Zulip's get_recipient_info sets). */
export interface IdleNotifyRows {
  users: Array<Pick<UserRow, 'id' | 'settings'>>;
  /** Subscriptions of idle people with the stream's own email or push notifications on. */
  streams: Array<{ user_id: number; stream_id: number }>;
  /** Topics idle people follow. */
  followed: Array<{ user_id: number; stream_id: number; topic_lower: string }>;
}

/**
 * Rows the user lacks for messages of the streams they are subscribed to now, with ids in
 * (after, upTo]: unread, but read up to `readThrough` (history an import left out).
 */
async function insertMissing(q: Q, userId: number, after: number, upTo: number, readThrough = 0): Promise<number> {
  const r = await sql`INSERT INTO user_message (user_id, message_id, flags)
    SELECT ${userId}, m.id, CASE WHEN m.id <= ${readThrough} THEN ${FLAG_BITS.read} ELSE 0 END FROM message m
    JOIN subscription s ON s.stream_id = m.stream_id AND s.user_id = ${userId} AND s.active = 1
    WHERE m.id > ${after} AND m.id <= ${upTo}
    AND NOT EXISTS (SELECT 1 FROM user_message um WHERE um.message_id = m.id AND um.user_id = ${userId})
    ON CONFLICT DO NOTHING`.execute(q);
  return Number(r.numAffectedRows ?? 0);
}

/** The newest message of any organization; 0 when there is none. */
const newestMessageId = async (q: Q): Promise<number> =>
  Number((await q.selectFrom('message').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);

interface IdleMark { id: number; last_active_message_id: number | null; read_through: number | null }

/** Idle people among `userIds` with their marks (none yet: rows from the first message on). */
const idleMarks = (q: Q, userIds: readonly number[]): Promise<IdleMark[]> =>
  q.selectFrom('users').leftJoin('idle_mark', 'idle_mark.user_id', 'users.id')
    .select(['users.id', 'idle_mark.last_active_message_id', 'idle_mark.read_through'])
    .where('users.id', 'in', [...userIds]).where('users.long_term_idle', '=', 1).execute();

/** Sets these people's marks (idle_mark, whose writes retire no cache: migration 077). */
async function setMarks(q: Q, userIds: readonly number[], lastActive: number, readThrough: number | null): Promise<void> {
  for (let i = 0; i < userIds.length; i += 500) {
    await q.insertInto('idle_mark').values(userIds.slice(i, i + 500).map((id) => ({ user_id: id, last_active_message_id: lastActive, read_through: readThrough })))
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_active_message_id: lastActive, read_through: readThrough })).execute();
  }
}

/**
 * Rows for an idle person up to `upTo`, their mark moved there. Rows made while they were
 * idle (mentions, their own notification settings) are kept as they are. The read-through
 * mark goes once the catch-up has reached the newest message.
 */
async function catchUpTo(q: Q, u: IdleMark, upTo: number, newest = upTo): Promise<number> {
  const after = u.last_active_message_id ?? 0;
  const made = after < upTo ? await insertMissing(q, u.id, after, upTo, u.read_through ?? 0) : 0;
  await setMarks(q, [u.id], Math.max(after, upTo), upTo >= newest ? null : u.read_through);
  return made;
}

/** Soft deactivation's rows: who is idle, when people were last seen, and catching up recipient rows. */
export const softDeactivation = {
  newestMessageId,

  /** The organization's soft-deactivated people, with what their notification settings need. */
  idleOfRealm: async (q: Q, realmId: number): Promise<IdleNotifyRows> => {
    const users = await q.selectFrom('users').select(['id', 'settings'])
      .where('realm_id', '=', realmId).where('long_term_idle', '=', 1).execute();
    if (users.length === 0) return { users, streams: [], followed: [] };
    const streams: IdleNotifyRows['streams'] = [];
    const followed: IdleNotifyRows['followed'] = [];
    for (let i = 0; i < users.length; i += 500) {
      const ids = users.slice(i, i + 500).map((u) => u.id);
      streams.push(...await q.selectFrom('subscription').select(['user_id', 'stream_id'])
        .where('user_id', 'in', ids).where('active', '=', 1)
        .where((eb) => eb.or([eb('push_notifications', '=', 1), eb('email_notifications', '=', 1)])).execute());
      followed.push(...await q.selectFrom('user_topic').select(['user_id', 'stream_id', 'topic_lower'])
        .where('user_id', 'in', ids).where('visibility_policy', '=', VisibilityPolicy.FOLLOWED).execute());
    }
    return { users, streams, followed };
  },

  /**
   * Gives each of these soft-deactivated people the recipient rows they lack for messages
   * of the streams they are subscribed to now, sent after their last_active_message_id, and
   * moves that mark to the newest message. Only correct while their subscriptions are
   * those they had all along, so every change of an idle person's subscriptions calls this
   * first. Answers how many rows were made.
   */
  catchUp: async (q: Q, userIds: readonly number[]): Promise<number> => {
    if (userIds.length === 0) return 0;
    const idle: IdleMark[] = [];
    for (let i = 0; i < userIds.length; i += 1000) idle.push(...await idleMarks(q, userIds.slice(i, i + 1000)));
    if (idle.length === 0) return 0;
    const newest = await newestMessageId(q);
    let made = 0;
    for (const u of idle) made += await catchUpTo(q, u, newest);
    return made;
  },

  /**
   * One step of a long catch-up (the daily job's): one idle person's rows for the next `span`
   * message ids after their mark, and the mark moved there. An import may leave someone a
   * year of messages behind: made at once, their rows would hold the writer for seconds.
   * `done` once the mark has reached the newest message (or they are not idle).
   */
  catchUpStep: async (q: Q, userId: number, span: number): Promise<{ rows: number; done: boolean }> => {
    const [u] = await idleMarks(q, [userId]);
    if (!u) return { rows: 0, done: true };
    const newest = await newestMessageId(q);
    const upTo = Math.min(newest, (u.last_active_message_id ?? 0) + span);
    const rows = await catchUpTo(q, u, upTo, newest);
    return { rows, done: upTo >= newest };
  },

  /**
   * Ends soft deactivation once caught up. last_active_message_id stays, the mark for
   * sweepAfterReturn: a send that read them as idle just before may commit just after.
   */
  markActive: async (q: Q, userId: number): Promise<void> => {
    await q.updateTable('users').set({ long_term_idle: 0 }).where('id', '=', userId).execute();
    rowsWritten(q, 'users');
  },

  /**
   * The rows that sends in flight while the person came back left out (they read them as
   * idle, then committed after the catch-up): those of messages after the catch-up's mark.
   * Then the mark goes. Answers how many rows were made.
   */
  sweepAfterReturn: async (q: Q, userId: number): Promise<number> => {
    const u = await q.selectFrom('users').innerJoin('idle_mark', 'idle_mark.user_id', 'users.id')
      .select(['users.long_term_idle', 'idle_mark.last_active_message_id']).where('users.id', '=', userId).executeTakeFirst();
    if (!u || u.long_term_idle === 1) return 0;
    const newest = await newestMessageId(q);
    const made = await insertMissing(q, userId, u.last_active_message_id, newest);
    // Not if they went idle again in between: that mark is theirs now.
    await q.deleteFrom('idle_mark').where('user_id', '=', userId)
      .where((eb) => eb.exists(eb.selectFrom('users').select('users.id').where('users.id', '=', userId).where('users.long_term_idle', '=', 0))).execute();
    return made;
  },

  /** Soft-deactivates these people: their rows are complete up to the newest message now. */
  markIdle: async (q: Q, userIds: readonly number[]): Promise<void> => {
    if (userIds.length === 0) return;
    const newest = await newestMessageId(q);
    const marked = await q.updateTable('users').set({ long_term_idle: 1 })
      .where('id', 'in', [...userIds]).where('long_term_idle', '=', 0).returning('id').execute();
    await setMarks(q, marked.map((r) => r.id), newest, null);
    rowsWritten(q, 'users');
  },

  /**
   * An imported person who was soft-deactivated where they came from: their rows are
   * complete up to `lastActive`, and those a catch-up makes up to `readThrough` are read.
   */
  markImportedIdle: async (q: Q, userId: number, lastActive: number, readThrough: number | null): Promise<void> => {
    const marked = await q.updateTable('users').set({ long_term_idle: 1 })
      .where('id', '=', userId).where('is_bot', '=', 0).returning('id').execute();
    if (marked.length > 0) await setMarks(q, [userId], lastActive, readThrough);
    rowsWritten(q, 'users');
  },

  /**
   * Active humans not seen since `cutoff` (joined before it when never seen), not idle yet,
   * at most `limit`: Zulip's get_users_for_soft_deactivation.
   */
  awayHumans: async (q: Q, cutoff: number, limit: number, realmId?: number): Promise<number[]> => {
    let query = q.selectFrom('users').leftJoin('user_activity', 'user_activity.user_id', 'users.id').select('users.id')
      .where('users.is_active', '=', 1).where('users.is_bot', '=', 0).where('users.is_system_bot', '=', 0)
      .where('users.long_term_idle', '=', 0)
      .where((eb) => eb(eb.fn.coalesce('user_activity.last_visit', 'users.date_joined'), '<', cutoff));
    if (realmId !== undefined) query = query.where('users.realm_id', '=', realmId);
    return (await query.orderBy('users.id').limit(limit).execute()).map((r) => r.id);
  },

  /** Soft-deactivated people, after `afterId`, at most `limit`. */
  idleIds: async (q: Q, afterId: number, limit: number, realmId?: number): Promise<number[]> => {
    let query = q.selectFrom('users').select('id').where('long_term_idle', '=', 1).where('id', '>', afterId);
    if (realmId !== undefined) query = query.where('realm_id', '=', realmId);
    return (await query.orderBy('id').limit(limit).execute()).map((r) => r.id);
  },

  /** The visit of one person (an upsert: people made before migration 074 have a row, new ones not yet). */
  recordVisit: async (q: Q, userId: number, at: number): Promise<void> => {
    await q.insertInto('user_activity').values({ user_id: userId, last_visit: at })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_visit: at })).execute();
  },
};
