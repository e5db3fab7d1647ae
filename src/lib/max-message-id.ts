import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { EventBus } from '../events/bus.js';
import { messages } from '../store/repos/messages.js';

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

export async function maxMessageIdFor(db: Kysely<DB>, userId: number): Promise<number> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(userId);
  if (hit && hit.version === version) return hit.value;
  const seen = version;
  const value = (await messages.userBounds(db, userId)).last ?? -1;
  if (cache.size >= 100_000) cache.clear();
  cache.set(userId, { version: seen, value });
  return value;
}
