import type { Q } from '../rows.js';

/** A message as the decider reads it. */
export interface UndecidedMessage {
  id: number; realm_id: number; sender_id: number; stream_id: number | null; topic_lower: string;
  rendered_content: string; date_sent: number;
  /** The sender's address and whether the server itself writes as them (Welcome Bot's messages notify nothing). */
  sender_email: string; sender_is_system_bot: number;
  /** A deactivated organization notifies nobody (one being imported is deactivated until it is complete). */
  realm_deactivated: number;
}

/** One recipient of a decided message, with its flags. */
export interface DecidedRecipient { message_id: number; user_id: number; flags: number }

export interface NotificationSubscription {
  user_id: number; stream_id: number; is_muted: number;
  email_notifications: number | null; push_notifications: number | null; wildcard_mentions_notify: number | null;
}

export interface NewMissedMessage {
  user_id: number; message_id: number; kind: 'email' | 'push'; trigger: string; mentioned_user_group_id: number | null; due: number;
}

export interface LeasedMissedMessage {
  id: number; user_id: number; message_id: number; trigger: string; mentioned_user_group_id: number | null; attempts: number; first_due: number;
}

const CURSOR = 1;

export const notificationCursor = {
  /** Takes (or renews) the single decider's lease: true for the one node holding it. */
  lease: async (q: Q, node: string, now: number, until: number): Promise<boolean> => {
    const r = await q.updateTable('notification_cursor').set({ leased_by: node, leased_until: until }).where('id', '=', CURSOR)
      .where((eb) => eb.or([eb('leased_by', 'is', null), eb('leased_by', '=', node), eb('leased_until', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  release: async (q: Q, node: string): Promise<void> => {
    await q.updateTable('notification_cursor').set({ leased_by: null, leased_until: null }).where('id', '=', CURSOR).where('leased_by', '=', node).execute();
  },

  position: async (q: Q): Promise<number> =>
    Number((await q.selectFrom('notification_cursor').select('last_message_id').where('id', '=', CURSOR).executeTakeFirstOrThrow()).last_message_id),

  /** Moves the cursor from `from` to `to` only if this node still leases it there: false means another decided meanwhile. */
  advance: async (q: Q, node: string, from: number, to: number): Promise<boolean> => {
    const r = await q.updateTable('notification_cursor').set({ last_message_id: to }).where('id', '=', CURSOR)
      .where('leased_by', '=', node).where('last_message_id', '=', from).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
};

export const missedMessages = {
  /** The next messages after `afterId`, in id order. */
  messagesAfter: (q: Q, afterId: number, limit: number): Promise<UndecidedMessage[]> =>
    q.selectFrom('message').innerJoin('users', 'users.id', 'message.sender_id').innerJoin('realm', 'realm.id', 'message.realm_id')
      .select(['message.id', 'message.realm_id', 'message.sender_id', 'message.stream_id', 'message.topic_lower', 'message.rendered_content', 'message.date_sent',
        'users.email as sender_email', 'users.is_system_bot as sender_is_system_bot', 'realm.deactivated as realm_deactivated'])
      .where('message.id', '>', afterId).orderBy('message.id').limit(limit).execute(),

  /** The human, active recipients of these messages (bots are never notified) and their flags. */
  recipientsOf: (q: Q, messageIds: number[]): Promise<DecidedRecipient[]> =>
    messageIds.length === 0 ? Promise.resolve([]) : q.selectFrom('user_message').innerJoin('users', 'users.id', 'user_message.user_id')
      .select(['user_message.message_id', 'user_message.user_id', 'user_message.flags'])
      .where('user_message.message_id', 'in', messageIds).where('users.is_bot', '=', 0).where('users.is_active', '=', 1).execute(),

  /** The stored settings of these users, once each (a batch's messages share most recipients). */
  settingsOf: async (q: Q, userIds: number[]): Promise<Map<number, string>> => {
    const out = new Map<number, string>();
    for (let i = 0; i < userIds.length; i += 1000) {
      for (const r of await q.selectFrom('users').select(['id', 'settings']).where('id', 'in', userIds.slice(i, i + 1000)).execute()) out.set(r.id, r.settings);
    }
    return out;
  },

  subscriptionsOf: (q: Q, streamIds: number[]): Promise<NotificationSubscription[]> =>
    streamIds.length === 0 ? Promise.resolve([]) : q.selectFrom('subscription')
      .select(['user_id', 'stream_id', 'is_muted', 'email_notifications', 'push_notifications', 'wildcard_mentions_notify'])
      .where('stream_id', 'in', streamIds).where('active', '=', 1).execute(),

  topicPoliciesOf: (q: Q, streamIds: number[]): Promise<Array<{ user_id: number; stream_id: number; topic_lower: string; visibility_policy: number }>> =>
    streamIds.length === 0 ? Promise.resolve([]) : q.selectFrom('user_topic').select(['user_id', 'stream_id', 'topic_lower', 'visibility_policy'])
      .where('stream_id', 'in', streamIds).execute(),

  /** Who muted any of these senders. */
  mutesOf: (q: Q, senderIds: number[]): Promise<Array<{ user_id: number; muted_user_id: number }>> =>
    senderIds.length === 0 ? Promise.resolve([]) : q.selectFrom('muted_user').select(['user_id', 'muted_user_id']).where('muted_user_id', 'in', senderIds).execute(),

  /** Each user's latest activity over all their clients. */
  lastActive: async (q: Q, userIds: number[]): Promise<Map<number, number>> => {
    if (userIds.length === 0) return new Map();
    const rows = await q.selectFrom('user_presence').select(['user_id', (eb) => eb.fn.max('last_active_time').as('t')])
      .where('user_id', 'in', userIds).groupBy('user_id').execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.t)]));
  },

  /** Those of these users with a registered mobile device (Zulip's push_device_registered_user_ids). */
  withDevices: async (q: Q, userIds: number[]): Promise<Set<number>> =>
    new Set(userIds.length === 0 ? [] : (await q.selectFrom('push_device').select('user_id').distinct().where('user_id', 'in', userIds).execute()).map((r) => r.user_id)),

  insert: async (q: Q, rows: NewMissedMessage[]): Promise<void> => {
    for (let i = 0; i < rows.length; i += 500) {
      await q.insertInto('missed_message_notification').values(rows.slice(i, i + 500).map((r) => ({ ...r, first_due: r.due }))).execute();
    }
  },

  /** Whether any notification of `kind` is due and unheld: a read, so that an idle look writes nothing. */
  anyDue: async (q: Q, kind: 'email' | 'push', now: number): Promise<boolean> =>
    (await q.selectFrom('missed_message_notification').select('id').where('kind', '=', kind).where('due', '<=', now)
      .where((e) => e.or([e('claimed_until', 'is', null), e('claimed_until', '<', now)])).limit(1).execute()).length > 0,

  /**
   * Takes, in one statement, every unheld notification of `kind` of up to `maxUsers` users
   * who have one due (an email batch is all of a user's, once the earliest is due): the rows
   * this node's update claimed, each claimed by exactly one node.
   */
  leaseDue: async (q: Q, kind: 'email' | 'push', now: number, until: number, maxUsers: number): Promise<LeasedMissedMessage[]> => {
    const rows = await q.updateTable('missed_message_notification').set({ claimed_until: until })
      .where('kind', '=', kind)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .where('user_id', 'in', (eb) => eb.selectFrom('missed_message_notification').select('user_id')
        .where('kind', '=', kind).where('due', '<=', now)
        .where((e) => e.or([e('claimed_until', 'is', null), e('claimed_until', '<', now)]))
        .groupBy('user_id').limit(maxUsers))
      .returning(['id', 'user_id', 'message_id', 'trigger', 'mentioned_user_group_id', 'attempts', 'first_due']).execute();
    return rows.map((r) => ({ ...r, first_due: Number(r.first_due) }));
  },

  /** Which of these messages still exist. */
  existing: async (q: Q, messageIds: number[]): Promise<Set<number>> =>
    new Set(messageIds.length === 0 ? [] : (await q.selectFrom('message').select('id').where('id', 'in', messageIds).execute()).map((r) => r.id)),

  deleteIds: async (q: Q, ids: number[]): Promise<void> => {
    for (let i = 0; i < ids.length; i += 5000) await q.deleteFrom('missed_message_notification').where('id', 'in', ids.slice(i, i + 5000)).execute();
  },

  /** A failed send: tried again at `due`, by any node. */
  retryAt: async (q: Q, ids: number[], due: number): Promise<void> => {
    if (ids.length > 0) {
      await q.updateTable('missed_message_notification').set((eb) => ({ due, claimed_until: null, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', ids).execute();
    }
  },
};
