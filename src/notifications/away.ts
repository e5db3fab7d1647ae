import type { AppContext } from '../context.js';
import { queuesIfInstalled } from '../events/manager.js';
import { missedMessages } from '../store/repos/missed-messages.js';

/** Zulip's OFFLINE_THRESHOLD_SECS for get_active_presence_idle_user_ids: activity older than this is idle. */
export const PRESENCE_IDLE_SECS = 140;

/**
 * Whether a user is away for a message sent at `sentAt`: no event queue of theirs
 * that takes message events is alive (Zulip's receiver_is_off_zulip), or their presence
 * reported no activity within the threshold before it (get_active_presence_idle_user_ids;
 * no presence at all is idle). In a cluster the queues live on any node: Redis keeps, per
 * user, which of their message queues are alive (src/cluster/user-queues.ts).
 */
export interface AwayState { lastActive: Map<number, number>; withQueues: Set<number> }

export async function awayState(ctx: AppContext, userIds: number[]): Promise<AwayState> {
  if (userIds.length === 0) return { lastActive: new Map(), withQueues: new Set() };
  const lastActive = await missedMessages.lastActive(ctx.store.db, userIds);
  const withQueues = ctx.cluster
    ? await ctx.cluster.userQueues.withLiveQueues(userIds, Date.now())
    : queuesIfInstalled(ctx)?.withMessageQueues(userIds) ?? new Set<number>();
  return { lastActive, withQueues };
}

export const isAway = (state: AwayState, userId: number, sentAt: number): boolean =>
  !state.withQueues.has(userId) || (state.lastActive.get(userId) ?? -Infinity) < sentAt - PRESENCE_IDLE_SECS;
