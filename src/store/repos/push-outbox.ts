import type { Q } from '../rows.js';
import type { PushOutboxRow } from '../schema.js';

/** The push notification service's state (migration 063): registration, call outbox, pushed messages. */
export const pushServer = {
  find: (q: Q) => q.selectFrom('push_server').selectAll().where('id', '=', 1).executeTakeFirst(),

  /** Stores the credentials unless another node already did; the stored ones win. */
  insertIfAbsent: async (q: Q, orgId: string, orgKey: string): Promise<void> => {
    await q.insertInto('push_server').values({ id: 1, zulip_org_id: orgId, zulip_org_key: orgKey, registered_at: null })
      .onConflict((oc) => oc.column('id').doNothing()).execute();
  },

  markRegistered: async (q: Q, at: number): Promise<void> => {
    await q.updateTable('push_server').set({ registered_at: at }).where('id', '=', 1).execute();
  },

  /** Takes the turn to queue the server data upload unless a node did within `spacing` seconds: whether it did. */
  claimAnalytics: async (q: Q, now: number, spacing: number): Promise<boolean> => {
    const res = await q.updateTable('push_server').set({ analytics_queued_at: now }).where('id', '=', 1)
      .where((eb) => eb.or([eb('analytics_queued_at', 'is', null), eb('analytics_queued_at', '<=', now - spacing)])).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },
};

/** What the service last answered for each organization (migration 066). */
export const pushRealm = {
  find: (q: Q, realmId: number) => q.selectFrom('push_realm').selectAll().where('realm_id', '=', realmId).executeTakeFirst(),

  set: async (q: Q, realmId: number, canPush: boolean, endTimestamp: number | null): Promise<void> => {
    const row = { can_push: canPush ? 1 : 0, end_timestamp: endTimestamp };
    await q.insertInto('push_realm').values({ realm_id: realmId, ...row })
      .onConflict((oc) => oc.column('realm_id').doUpdateSet(row)).execute();
  },
};

export const pushOutbox = {
  insert: async (q: Q, rows: Array<{ endpoint: string; body: string; due: number }>): Promise<void> => {
    if (rows.length === 0) return;
    await q.insertInto('push_outbox').values(rows.map((r) => ({ ...r, lease_until: null, created: r.due }))).execute();
  },

  /** Whether a call to `endpoint` is still to make (registration is queued once). */
  hasPending: async (q: Q, endpoint: string): Promise<boolean> =>
    (await q.selectFrom('push_outbox').select('id').where('endpoint', '=', endpoint).limit(1).executeTakeFirst()) !== undefined,

  /** Whether any call is due and unheld: a read, so that an idle tick writes nothing. */
  anyDue: async (q: Q, now: number): Promise<boolean> =>
    (await q.selectFrom('push_outbox').select('id').where('due', '<=', now)
      .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<', now)])).limit(1).execute()).length > 0,

  /** Takes up to `limit` due calls no node holds, in one statement: the rows this node now holds until `until`. */
  leaseDue: async (q: Q, now: number, until: number, limit: number): Promise<PushOutboxRow[]> =>
    q.updateTable('push_outbox').set({ lease_until: until })
      .where('id', 'in', (eb) => eb.selectFrom('push_outbox').select('id').where('due', '<=', now)
        .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<', now)]))
        .orderBy('due').orderBy('id').limit(limit))
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll().execute(),

  /** Done (or given up), many at once: each only while the lease it was taken with holds. */
  removeMany: async (q: Q, done: Array<{ id: number; lease: number }>): Promise<void> => {
    const byLease = new Map<number, number[]>();
    for (const d of done) byLease.set(d.lease, [...(byLease.get(d.lease) ?? []), d.id]);
    for (const [lease, ids] of byLease) {
      for (let i = 0; i < ids.length; i += 500) {
        await q.deleteFrom('push_outbox').where('id', 'in', ids.slice(i, i + 500)).where('lease_until', '=', lease).execute();
      }
    }
  },

  /** Done (or given up): only while this node's lease holds. */
  remove: async (q: Q, id: number, lease: number): Promise<void> => {
    await q.deleteFrom('push_outbox').where('id', '=', id).where('lease_until', '=', lease).execute();
  },

  retryAt: async (q: Q, id: number, lease: number, due: number, attempts: number): Promise<void> => {
    await q.updateTable('push_outbox').set({ due, attempts, lease_until: null }).where('id', '=', id).where('lease_until', '=', lease).execute();
  },
};

/** Tokens the service reported gone (Zulip's deleted_devices): every user's rows of them. */
export async function deletePushTokens(q: Q, kind: number, tokens: string[]): Promise<void> {
  for (let i = 0; i < tokens.length; i += 500) {
    await q.deleteFrom('push_device').where('kind', '=', kind).where('token', 'in', tokens.slice(i, i + 500)).execute();
  }
}

export const pushActive = {
  /** Marks the message pushed to the user; false if it already was (Zulip pushes a message once). */
  add: async (q: Q, userId: number, messageId: number): Promise<boolean> => {
    const res = await q.insertInto('push_active').values({ user_id: userId, message_id: messageId })
      .onConflict((oc) => oc.columns(['user_id', 'message_id']).doNothing()).returning('message_id').executeTakeFirst();
    return res !== undefined;
  },

  /** Forgets and answers which of `messageIds` (all of them: null) were pushed to the user. */
  take: async (q: Q, userId: number, messageIds: number[] | null): Promise<number[]> => {
    const all = () => q.selectFrom('push_active').select('message_id').where('user_id', '=', userId);
    const ids: number[] = [];
    if (messageIds === null) ids.push(...(await all().execute()).map((r) => r.message_id));
    for (let i = 0; messageIds !== null && i < messageIds.length; i += 500) {
      ids.push(...(await all().where('message_id', 'in', messageIds.slice(i, i + 500)).execute()).map((r) => r.message_id));
    }
    if (ids.length === 0) return [];
    for (let i = 0; i < ids.length; i += 500) {
      await q.deleteFrom('push_active').where('user_id', '=', userId).where('message_id', 'in', ids.slice(i, i + 500)).execute();
    }
    return ids;
  },

  /** Forgets the pushes of deleted messages (indexed by message): each user's ids among them. */
  takeMessages: async (q: Q, messageIds: number[]): Promise<Map<number, number[]>> => {
    const byUser = new Map<number, number[]>();
    for (let i = 0; i < messageIds.length; i += 500) {
      const chunk = messageIds.slice(i, i + 500);
      const rows = await q.selectFrom('push_active').select(['user_id', 'message_id']).where('message_id', 'in', chunk).execute();
      if (rows.length === 0) continue;
      for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r.message_id]);
      await q.deleteFrom('push_active').where('message_id', 'in', chunk).execute();
    }
    return byUser;
  },

  /** A user's devices went (deactivation, new API key): nothing of theirs is shown any more. */
  clearUser: async (q: Q, userId: number): Promise<void> => {
    await q.deleteFrom('push_active').where('user_id', '=', userId).execute();
  },
};
