import type { QueuedEvent } from '../events/queue.js';

/** The body of a GET /events answer, assembled from the queued serialisations. */
export function eventsAnswer(events: readonly QueuedEvent[], queueId: string): string {
  let out = '{"result":"success","msg":"","events":[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    out += `${i > 0 ? ',' : ''}{"id":${e.id},${e.json.slice(1)}`;
  }
  return `${out}],"queue_id":${JSON.stringify(queueId)}}`;
}
