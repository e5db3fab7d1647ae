import type { Q, StreamRow, UserRow } from '../rows.js';

/** A stream message the digest weighs: no content (only the few teasers load it, by id). */
export interface DigestMessage {
  id: number;
  stream_id: number;
  stream_name: string;
  topic: string;
  topic_lower: string;
  sender_id: number;
  sender_name: string;
  sender_is_bot: number;
}

export type DigestStream = Pick<StreamRow, 'id' | 'name' | 'invite_only' | 'is_web_public'>;

export const digests = {
  /**
   * The organization's active humans with nothing Parley records of their activity after
   * `cutoff` (presence, a web session's use, a message sent), no digest sent after
   * `sentAfter` and none found empty after `checkedAfter`: Zulip's digest candidates, before
   * their own settings are looked at.
   */
  listAwayHumans: async (q: Q, realmId: number, cutoff: number, sentAfter: number, checkedAfter: number): Promise<UserRow[]> =>
    q.selectFrom('users').selectAll('users')
      .where('users.realm_id', '=', realmId).where('users.is_active', '=', 1)
      .where('users.is_bot', '=', 0).where('users.is_system_bot', '=', 0)
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('user_presence').select('user_presence.user_id')
          .whereRef('user_presence.user_id', '=', 'users.id').where('user_presence.last_active_time', '>', cutoff))))
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('session').select('session.user_id')
          .whereRef('session.user_id', '=', 'users.id').where('session.last_seen', '>', cutoff))))
      // The newest message by the user (the sender index answers max(id) alone), sent after the cutoff.
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('message as last').select('last.id')
          .where('last.id', '=', (eb) => eb.selectFrom('message as m').select((e) => e.fn.max('m.id').as('id')).whereRef('m.sender_id', '=', 'users.id'))
          .where('last.date_sent', '>', cutoff))))
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('digest_state').select('digest_state.user_id')
          .whereRef('digest_state.user_id', '=', 'users.id')
          .where((eb) => eb.or([eb('digest_state.last_sent', '>', sentAfter), eb('digest_state.last_checked', '>', checkedAfter)])))))
      .orderBy('users.id').execute(),

  /**
   * Takes the lease on a user's digest until `until`: true for the one node whose update
   * changed the row, and only while no digest was sent after `sentAfter`.
   */
  claim: async (q: Q, userId: number, now: number, until: number, sentAfter: number): Promise<boolean> => {
    await q.insertInto('digest_state').values({ user_id: userId, last_sent: null, claimed_until: null })
      .onConflict((oc) => oc.column('user_id').doNothing()).execute();
    const r = await q.updateTable('digest_state').set({ claimed_until: until })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .where((eb) => eb.or([eb('last_sent', 'is', null), eb('last_sent', '<=', sentAfter)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  markSent: async (q: Q, userId: number, now: number): Promise<void> => {
    await q.updateTable('digest_state').set({ last_sent: now, claimed_until: null }).where('user_id', '=', userId).execute();
  },

  release: async (q: Q, userId: number): Promise<void> => {
    await q.updateTable('digest_state').set({ claimed_until: null }).where('user_id', '=', userId).execute();
  },

  /** Frees the claim of a user whose digest had nothing to tell, noting when. */
  markEmpty: async (q: Q, userId: number, now: number): Promise<void> => {
    await q.updateTable('digest_state').set({ claimed_until: null, last_checked: now }).where('user_id', '=', userId).execute();
  },

  /**
   * Messages after `cutoff` in the streams the user is subscribed to and has not muted, oldest
   * first; in a stream whose history is not public to subscribers only those the user received.
   */
  listStreamMessagesSince: (q: Q, userId: number, realmId: number, cutoff: number): Promise<DigestMessage[]> =>
    q.selectFrom('message')
      .innerJoin('subscription', (j) => j.onRef('subscription.stream_id', '=', 'message.stream_id')
        .on('subscription.user_id', '=', userId).on('subscription.active', '=', 1).on('subscription.is_muted', '=', 0))
      .innerJoin('stream', 'stream.id', 'message.stream_id')
      .innerJoin('users', 'users.id', 'message.sender_id')
      .select(['message.id', 'message.topic', 'message.topic_lower', 'message.sender_id', 'users.full_name as sender_name', 'users.is_bot as sender_is_bot', 'stream.name as stream_name'])
      .select((eb) => eb.ref('message.stream_id').$notNull().as('stream_id'))
      .where('message.realm_id', '=', realmId).where('message.date_sent', '>', cutoff)
      .where('stream.deactivated', '=', 0)
      .where((eb) => eb.or([
        eb('stream.history_public_to_subscribers', '=', 1),
        eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
          .where('user_message.user_id', '=', userId).whereRef('user_message.message_id', '=', 'message.id')),
      ]))
      .orderBy('message.id').execute(),

  listContents: (q: Q, ids: number[]): Promise<Array<{ id: number; content: string; rendered_content: string }>> =>
    ids.length === 0 ? Promise.resolve([]) : q.selectFrom('message').select(['id', 'content', 'rendered_content']).where('id', 'in', ids).execute(),

  listStreamsCreatedAfter: (q: Q, realmId: number, cutoff: number): Promise<DigestStream[]> =>
    q.selectFrom('stream').select(['id', 'name', 'invite_only', 'is_web_public'])
      .where('realm_id', '=', realmId).where('deactivated', '=', 0).where('date_created', '>', cutoff)
      .orderBy('id').execute(),
};
