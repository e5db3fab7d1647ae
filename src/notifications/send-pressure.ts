import type { AppContext } from '../context.js';

/**
 * Whether messages are being sent right now (one was heard on the bus within the last
 * second): the notification work then yields to the sends, which share the store's writer
 * and the CPU with it, and catches up once they pause.
 */
const SENDS_QUIET_MS = 1000;
const lastHeard = new WeakMap<AppContext, number>();

export function noteSend(ctx: AppContext): void {
  lastHeard.set(ctx, performance.now());
}

export function sendsUnderWay(ctx: AppContext): boolean {
  return performance.now() - (lastHeard.get(ctx) ?? -Infinity) < SENDS_QUIET_MS;
}
