import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import type { MessageRow, Q, StreamRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { subscriberIds } from '../reads/streams.js';
import { cacheSignal } from '../cache/signal.js';
import { Role } from '../lib/roles.js';

type Holders = ReadonlyArray<{ user_id: number; message_id: number }>;

/**
 * Who hears of the deletion of each of a batch's messages: the rule of
 * messageActionAudience (reads/message-audience.ts) applied to many messages of one
 * stream at once, so a batch of a thousand costs two queries rather than a thousand.
 * Private messages: whoever holds a recipient row. Answers user id -> message ids.
 */
async function batchAudience(q: Q, rows: readonly MessageRow[], holders: Holders, stream: StreamRow | undefined): Promise<Map<number, number[]>> {
  const held = new Map<number, number[]>();
  for (const h of holders) held.set(h.user_id, [...(held.get(h.user_id) ?? []), h.message_id]);
  if (!stream) return held;
  const subscribers = await subscriberIds(q, stream.id);
  const all = rows.map((r) => r.id);
  const out = new Map<number, number[]>();
  if (stream.history_public_to_subscribers !== 1) {
    // Protected history: subscribers who received the message.
    for (const id of subscribers) if (held.has(id)) out.set(id, held.get(id)!);
    return out;
  }
  for (const id of subscribers) out.set(id, all);
  if (stream.invite_only === 1) return out;
  // A public stream's non-guest holders who are not subscribed (they left, or reacted) hear of what they hold.
  const others = [...held.keys()].filter((id) => !out.has(id));
  if (others.length > 0) for (const u of await users.listByIds(q, others)) if (u.role !== Role.GUEST) out.set(u.id, held.get(u.id)!);
  return out;
}

/** One event per distinct set of ids, to the users who lose exactly that set (as topic deletion does). */
function grouped(perUser: ReadonlyMap<number, readonly number[]>): Array<{ ids: number[]; users: number[] }> {
  const groups = new Map<string, { ids: number[]; users: number[] }>();
  for (const [userId, msgIds] of perUser) {
    const ids = [...msgIds].sort((a, b) => a - b);
    const key = ids.join(',');
    const g = groups.get(key) ?? { ids, users: [] };
    g.users.push(userId);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * The `delete_message` events of an archived batch, as a manual deletion sends them: for a
 * stream, one per topic (a stream event names its topic) and set of ids; for private
 * messages, one per set of ids, naming neither sender nor recipient. Read the audience
 * (holders included) before the rows go.
 */
export async function queueArchiveEvents(tx: Tx, realmId: number, rows: readonly MessageRow[], holders: Holders, stream: StreamRow | undefined): Promise<void> {
  const audience = await batchAudience(tx.db, rows, holders, stream);
  if (!stream) {
    for (const g of grouped(audience)) tx.notify({ type: 'delete_message', message_type: 'private', message_ids: g.ids }, g.users, realmId);
    return;
  }
  const topicOf = new Map(rows.map((r) => [r.id, r.topic]));
  const byTopic = new Map<string, Map<number, number[]>>();
  for (const [userId, ids] of audience) {
    for (const id of ids) {
      const topic = topicOf.get(id)!;
      const users = byTopic.get(topic) ?? new Map<number, number[]>();
      users.set(userId, [...(users.get(userId) ?? []), id]);
      byTopic.set(topic, users);
    }
  }
  for (const [topic, perUser] of byTopic) {
    for (const g of grouped(perUser)) {
      tx.notify({ type: 'delete_message', message_type: 'stream', message_ids: g.ids, stream_id: stream.id, topic }, g.users, realmId);
    }
  }
}

/**
 * Cached copies of these messages are dropped once the transaction commits, here and on a
 * cluster's other nodes, whether or not any event went out (a message nobody holds, or
 * one restored, which sends none).
 */
export function retireMessagesOnCommit(ctx: AppContext, tx: Tx, messageIds: readonly number[]): void {
  tx.onCommit(() => {
    cacheSignal.retire({ scopes: new Set(['messages']), messageIds });
    if (ctx.bus.shared) ctx.bus.announce({ kind: 'retire', origin: ctx.bus.nodeId, scopes: ['messages'], messageIds: [...messageIds] });
  });
}
