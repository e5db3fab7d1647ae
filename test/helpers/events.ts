import { until } from './until.js';
import type { AppContext } from '../../src/context.js';
import { queuesOf } from '../../src/events/manager.js';

/**
 * Waits until a poll of the queue is parked on the server (and so will be answered by the
 * next event): what a test must know before it makes that event, instead of sleeping.
 */
export async function untilParked(ctx: AppContext, queueId: string, userId: number): Promise<void> {
  const queue = queuesOf(ctx).get(queueId, userId);
  await until(() => queue.waiter !== undefined, { message: `a poll of queue ${queueId} to park` });
}
