import type { EventBus } from './bus.js';
import type { ParleyEvent } from './types.js';

let publishing = false;

/**
 * The one way an event leaves an action: called only after the change it describes has
 * committed (transact() runs it after COMMIT; a send, once its group commit has). Nobody
 * else calls the bus's publish.
 */
export function publish(bus: EventBus, realmId: number, event: ParleyEvent, userIds: readonly number[]): void {
  if (userIds.length === 0) return;
  publishing = true;
  try {
    bus.publish({ realmId, event, userIds: [...userIds] });
  } finally {
    publishing = false;
  }
}

/** True while publish() is handing an envelope to the bus: lets a test prove nothing else does. */
export function isPublishing(): boolean {
  return publishing;
}
