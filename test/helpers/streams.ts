import { REPLACED_POLICY } from '../../src/lib/realm-group-settings.js';
import type { TestApp, TestUser } from './app.js';
import { assertOk } from './assert.js';
import { transact } from '../../src/actions/transaction.js';
import { createStreamWithSubscribers, type StreamSpec } from '../../src/actions/stream-create.js';
import { realms } from '../../src/store/repos/realms.js';
import type { StreamRow } from '../../src/store/rows.js';

/** A stream for createStreams: its subscribers, or its settings with them. */
export type StreamSetup = TestUser[] | (Omit<StreamSpec, 'name'> & { subscribers: TestUser[] });

/**
 * Creates streams named by the keys (or finds them), in the keys' order and in one
 * transaction, through the action (no API call, no permission check), and subscribes
 * their subscribers; answers the stream rows by the same keys.
 */
export async function createStreams<K extends string>(t: TestApp, streams: Record<K, StreamSetup>): Promise<Record<K, StreamRow>> {
  return transact(t.app.ctx, async (tx) => {
    const out = {} as Record<K, StreamRow>;
    for (const name of Object.keys(streams) as K[]) {
      const setup = streams[name];
      const { subscribers, ...spec } = Array.isArray(setup) ? { subscribers: setup } : setup;
      out[name] = await createStreamWithSubscribers(tx, t.realm, { name, ...spec }, subscribers.map((u) => u.row));
    }
    return out;
  });
}

/** Subscribes through the API and returns the stream id. */
export async function subscribe(t: TestApp, as: TestUser, name: string, params: Record<string, unknown> = {}): Promise<number> {
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name }], ...params } }));
  const r = await t.api('GET', '/api/v1/get_stream_id', { as: t.owner, query: { stream: name } });
  if (r.status === 200) return r.body.stream_id;
  const row = await t.app.ctx.store.db.selectFrom('stream').select('id').where('name', '=', name).where('deactivated', '=', 0).executeTakeFirstOrThrow();
  return row.id;
}

/** Merges organization settings straight into the realm row (no settings endpoint yet). */
export async function setRealmSettings(t: TestApp, patch: Record<string, unknown>): Promise<void> {
  const row = (await realms.findById(t.app.ctx.store.db, t.realm.id))!;
  const settings = { ...JSON.parse(row.settings), ...patch } as Record<string, unknown>;
  // A replaced policy written directly decides again: the group settings it maps to are
  // dropped, so they follow the stored policy (src/lib/realm-group-settings.ts).
  for (const [g, r] of Object.entries(REPLACED_POLICY)) if (r.policy in patch && !(g in patch)) delete settings[g];
  if ('private_message_policy' in patch && !('direct_message_permission_group' in patch)) delete settings.direct_message_permission_group;
  await realms.update(t.app.ctx.store.db, t.realm.id, { settings: JSON.stringify(settings) });
}

/** Inserts a stream message row directly (for topic listings), with user_message rows for `receivers`. */
export async function insertStreamMessage(t: TestApp, streamId: number, senderId: number, topic: string, receivers: number[]): Promise<number> {
  const db = t.app.ctx.store.db;
  const stream = await db.selectFrom('stream').selectAll().where('id', '=', streamId).executeTakeFirstOrThrow();
  const row = await db.insertInto('message').values({
    realm_id: stream.realm_id, sender_id: senderId, recipient_id: stream.recipient_id!, stream_id: streamId, topic,
    topic_lower: topic.toLowerCase(), content: 'hello', rendered_content: '<p>hello</p>', rendered_content_version: 1,
    date_sent: Math.floor(Date.now() / 1000), client: 'test', last_edit_time: null, edit_history: null,
    is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0,
  }).returning('id').executeTakeFirstOrThrow();
  for (const u of receivers) await db.insertInto('user_message').values({ user_id: u, message_id: row.id, flags: 0 }).execute();
  return row.id;
}
