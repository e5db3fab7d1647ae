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
import { sendMissedMessagePushes, startPush } from './notifications/push.js';
import { sendMissedMessageEmails } from './notifications/email.js';
import { startNotifications } from './notifications/start.js';
import type { MissedMessageSenders } from './notifications/senders.js';
import { startJobs } from './jobs/scheduler.js';
import { scheduledJobs } from './jobs/schedule.js';

/**
 * Everything a server runs besides answering requests, started explicitly once its
 * context exists: outgoing-webhook deliveries, what retires its caches, and its event queues. Nothing is registered
 * by importing a module.
 */
/** `senders`: what the notification worker hands due notifications to (tests record them); the mail and push senders by default. */
export function startServices(ctx: AppContext, senders?: MissedMessageSenders): void {
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
  // The periodic jobs (storage sweep, ...), one node of a cluster at a time; their hook ends the runs under way.
  if (ctx.config.backgroundJobs) {
    const jobs = startJobs(ctx, scheduledJobs());
    ctx.jobs = jobs;
    ctx.shutdownHooks.push(() => jobs.stop());
  }
  // Mobile push through Zulip's service (PARLEY_PUSH_BOUNCER_URL): registers this server, then makes queued calls.
  startPush(ctx);
  // Who is away and notified of each message, decided after its send commits; emails batched, pushes through the outbox above.
  startNotifications(ctx, senders ?? { email: sendMissedMessageEmails, push: sendMissedMessagePushes });
  startRecentlyActiveRefresh(ctx);
  startDigests(ctx);
  const stopCaches = connectCacheSignal(ctx);
  ctx.shutdownHooks.push(async () => stopCaches());
  // A cluster node's queues move between nodes: the cluster's handover, given to the manager here.
  const cluster = ctx.cluster;
  installQueueManager(ctx, cluster ? (held) => new QueueHandover(ctx, cluster, held) : undefined);
}
