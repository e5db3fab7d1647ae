import assert from 'node:assert/strict';
import type { TestApp, TestUser, httpClient } from './app.js';
import { until } from './until.js';
import type { AppContext } from '../../src/context.js';
import type { EventEnvelope } from './envelope.js';
import { queuesOf } from '../../src/events/manager.js';

/** Records every envelope published on the bus while it is attached. */
export class EventLog {
  events: EventEnvelope[] = [];
  constructor(t: TestApp) {
    t.app.ctx.bus.subscribe((e) => this.events.push(e));
  }
  clear(): void {
    this.events.length = 0;
  }
  find(type: string, op?: string, pred: (e: EventEnvelope) => boolean = () => true): EventEnvelope[] {
    return this.events.filter((e) => e.event.type === type && (op === undefined || e.event.op === op) && pred(e));
  }
  one(type: string, op?: string, pred?: (e: EventEnvelope) => boolean): EventEnvelope {
    const found = this.find(type, op, pred);
    assert.equal(found.length, 1, `expected one ${type}/${op} event, got ${JSON.stringify(found.map((e) => e.event))}`);
    return found[0]!;
  }
  /** Users who received any event mentioning the stream id. */
  recipientsMentioning(streamId: number): Set<number> {
    const out = new Set<number>();
    for (const e of this.events) {
      if (JSON.stringify(e.event).match(new RegExp(`"(stream_id|stream_ids)":\\[?([0-9,]*,)?${streamId}[,\\]}]`))) e.userIds.forEach((u) => out.add(u));
    }
    return out;
  }
}

type Http = ReturnType<typeof httpClient>;

/** A queue registered over real HTTP, and the id of the last event taken from it. */
export interface Listener {
  user: TestUser;
  queueId: string;
  lastId: number;
}

/**
 * The event-queue endpoints over real HTTP, as clients call them: POST /register, GET
 * /events (which parks until an event or a heartbeat), and `listen`/`drain` for tests that
 * follow a queue from one check to the next.
 */
export function eventQueues(http: Http) {
  const register = (as: TestUser, params: Record<string, unknown> = {}) => http(as, 'POST', '/register', params);
  const poll = (as: TestUser, queueId: string, lastEventId: number, extra: Record<string, unknown> = {}) =>
    http(as, 'GET', '/events', { queue_id: queueId, last_event_id: lastEventId, ...extra });
  return {
    register,
    poll,
    /** Registers a queue (asserting success) to follow with `drain`. */
    async listen(user: TestUser, params: Record<string, unknown> = {}): Promise<Listener> {
      const r = await register(user, params);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { user, queueId: r.body.queue_id, lastId: r.body.last_event_id };
    },
    /** What arrived since the last drain, heartbeats left out, without waiting (dont_block). */
    async drain(l: Listener): Promise<any[]> {
      const r = await poll(l.user, l.queueId, l.lastId, { dont_block: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const events = r.body.events.filter((e: any) => e.type !== 'heartbeat');
      if (r.body.events.length) l.lastId = r.body.events.at(-1).id;
      return events;
    },
  };
}

/**
 * Waits until a poll of the queue is parked on the server (and so will be answered by the
 * next event): what a test must know before it makes that event, instead of sleeping.
 */
export async function untilParked(ctx: AppContext, queueId: string, userId: number): Promise<void> {
  const queue = queuesOf(ctx).get(queueId, userId);
  await until(() => queue.waiter !== undefined, { message: `a poll of queue ${queueId} to park` });
}
