import { EventQueue } from '../events/queue.js';
import type { BusPlace } from '../events/bus.js';
import type { EventEnvelope } from '../events/types.js';
import type { DurableQueues, SavedQueue } from './durable-queues.js';

/** An envelope this node heard while a queue was being rebuilt, and where. */
export type Heard = [EventEnvelope, BusPlace];

/**
 * A queue as the node that held it had it: events numbered from the checkpoint, made
 * from the bus's entries after it up to `upto` (where this node stood when it began),
 * then from what this node heard since (`heard`, filled by the caller meanwhile).
 * Undefined when the bus no longer keeps every entry after the checkpoint: then the
 * queue cannot be rebuilt whole, and the client must register again.
 */
export async function rebuildQueue(
  durable: DurableQueues, id: string, saved: SavedQueue, upto: string, heard: Heard[],
  deliverTo: (q: EventQueue, env: EventEnvelope, place: BusPlace) => void,
): Promise<EventQueue | undefined> {
  if (!(await durable.replayableFrom(saved.checkpoint.pos))) return undefined;
  const q = new EventQueue({ ...saved.options, id, nextEventId: saved.checkpoint.id, events: [], lastAccess: Date.now() });
  let after = saved.checkpoint.pos;
  for await (const [at, env] of durable.entries(after, upto)) {
    deliverTo(q, env, { at, after });
    after = at;
  }
  // Checked again after reading: entries trimmed while they were read would leave a gap.
  if (!(await durable.replayableFrom(saved.checkpoint.pos))) return undefined;
  for (const [env, place] of heard) deliverTo(q, env, place);
  heard.length = 0;
  return q;
}
