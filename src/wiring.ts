import type { AppContext } from './context.js';
import { connectCacheSignal } from './cache/retire.js';
import { installQueueManager } from './events/manager.js';
import { QueueHandover } from './cluster/queue-handover.js';
import { setStreamEmailDomain } from './presenters/stream.js';
import { setDummyEmailDomain } from './presenters/user.js';
import { startOutgoingWebhooks } from './outgoing-webhooks/service.js';
import { sendMessage } from './actions/message-send.js';
import { startScheduledDelivery } from './actions/scheduled-delivery.js';
import { startFullMemberPromotion } from './actions/full-members.js';
import { startRecentlyActiveRefresh } from './actions/stream-activity.js';
import { startDigests } from './notifications/digest.js';
import { startPush } from './notifications/push.js';

/**
 * Everything a server runs besides answering requests, started explicitly once its
 * context exists: outgoing-webhook deliveries, what retires its caches, and its event queues. Nothing is registered
 * by importing a module.
 */
export function startServices(ctx: AppContext): void {
  try {
    // Stream email addresses name the server's host.
    setStreamEmailDomain(new URL(ctx.config.externalUrl).hostname);
    // As do users' dummy addresses (feature level 163).
    setDummyEmailDomain(new URL(ctx.config.externalUrl).hostname);
  } catch {
    /* a malformed external URL keeps the default domain rather than failing startup */
  }
  // First, so that its shutdown hook runs first: calls still finishing may post replies,
  // which the caches and event queues below must still see.
  ctx.outgoingWebhooks = startOutgoingWebhooks(ctx, (realm, bot, post) => sendMessage(ctx, realm, bot, post));
  // Before the caches' and queues' hooks, so that its shutdown hook (a round finishing its sends) runs while they still serve.
  ctx.scheduledDelivery = startScheduledDelivery(ctx);
  ctx.fullMembers = startFullMemberPromotion(ctx);
  // Mobile push through Zulip's service (PARLEY_PUSH_BOUNCER_URL): registers this server, then makes queued calls.
  startPush(ctx);
  startRecentlyActiveRefresh(ctx);
  startDigests(ctx);
  const stopCaches = connectCacheSignal(ctx);
  ctx.shutdownHooks.push(async () => stopCaches());
  // A cluster node's queues move between nodes: the cluster's handover, given to the manager here.
  const cluster = ctx.cluster;
  installQueueManager(ctx, cluster ? (held) => new QueueHandover(ctx, cluster, held) : undefined);
}
