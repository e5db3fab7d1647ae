import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { EventBus } from '../events/bus.js';
import { messages } from '../store/repos/messages.js';
import { prepared } from '../store/prepared.js';
import { dialectOf } from '../store/db.js';

/**
 * GET /users/me still answers the deprecated max_message_id, a per-user MAX over
 * user_message on every call. The value only changes when messages arrive, move or go,
 * and every such change is announced on the bus (on every node), so a per-user value is
 * kept until the next message event of any kind.
 */
const MESSAGE_EVENTS = new Set(['message', 'delete_message', 'update_message']);
let version = 0;
// Keyed by database handle too: tests run several servers in one process.
const caches = new WeakMap<Kysely<DB>, Map<number, { version: number; value: number }>>();

/** Changes whenever any message event was published; part of cache keys that include max_message_id. */
export const messageVersion = () => version;

export function watchMessageChanges(bus: EventBus): () => void {
  return bus.subscribe((e) => {
    if (MESSAGE_EVENTS.has(e.event.type)) version += 1;
  });
}

// PostgreSQL keeps recipient rows keyed by user: one index step. On SQLite they are keyed by
// message, and the user's last message comes from the ends of their partial indexes.
const maxQuery = prepared((db, userId: number) =>
  db.selectFrom('user_message').select((eb) => eb.fn.max('message_id').as('m')).where('user_id', '=', userId), [0]);

async function loadMax(db: Kysely<DB>, userId: number): Promise<number> {
  if (dialectOf(db) === 'sqlite') return (await messages.userBounds(db, userId)).last ?? -1;
  const [row] = await maxQuery(db, userId);
  return row?.m == null ? -1 : Number(row.m);
}

export async function maxMessageIdFor(db: Kysely<DB>, userId: number): Promise<number> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(userId);
  if (hit && hit.version === version) return hit.value;
  const seen = version;
  const value = await loadMax(db, userId);
  if (cache.size >= 100_000) cache.clear();
  cache.set(userId, { version: seen, value });
  return value;
}
