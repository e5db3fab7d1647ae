/**
 * The server's outgoing-webhook deliveries: a bounded pool (src/outgoing-webhooks/pool.ts)
 * running deliver() for each job the send path hands over after its commit. Started by
 * startServices; stopped at shutdown without waiting for slow endpoints beyond a grace.
 */
import type { AppContext } from '../context.js';
import type { OutgoingWebhookJob, OutgoingWebhookQueue, PostAsBot } from './types.js';
import { JobPool } from './pool.js';
import { deliver, notifyDropped } from './deliver.js';

/** An owner hears of dropped deliveries at most this often per bot: a flood must not become one of notices. */
const DROP_NOTICE_EVERY_MS = 60_000;

/** `post` is the send action (Zulip's send_response_message path), given by the caller. */
export function startOutgoingWebhooks(ctx: AppContext, post: PostAsBot): OutgoingWebhookQueue {
  const { config, log } = ctx;
  const pool = new JobPool<OutgoingWebhookJob>(
    (job, signal) => deliver(ctx, post, job, signal),
    { concurrency: config.outgoingWebhookConcurrency, backlog: config.outgoingWebhookBacklog },
    (err) => log.error({ err }, 'outgoing webhook delivery failed'),
  );
  const lastDropNotice = new Map<number, number>();
  const notices = new Set<Promise<void>>();
  let stopping = false;
  const queue: OutgoingWebhookQueue = {
    get pending() {
      return pool.size;
    },
    enqueue: (job) => {
      if (pool.offer(job)) return;
      if (stopping) {
        log.warn({ botId: job.botId, messageId: job.message.id }, 'outgoing webhook not called: the server is stopping');
        return;
      }
      log.warn({ botId: job.botId, messageId: job.message.id, backlog: pool.size }, 'outgoing webhook dropped: the delivery queue is full');
      const now = Date.now();
      if (now - (lastDropNotice.get(job.botId) ?? -Infinity) < DROP_NOTICE_EVERY_MS) return;
      lastDropNotice.set(job.botId, now);
      const notice = notifyDropped(ctx, post, job)
        .catch((err: unknown) => log.error({ err }, 'outgoing webhook: could not tell the owner of a dropped call'))
        .finally(() => notices.delete(notice));
      notices.add(notice);
    },
  };
  ctx.shutdownHooks.push(async () => {
    stopping = true;
    // Nothing is kept across a restart (Zulip's RabbitMQ queue would keep it): say what is lost.
    const lost = await pool.stop(config.outgoingWebhookShutdownGraceMs);
    if (lost > 0) log.warn({ lost }, 'outgoing webhook deliveries abandoned at shutdown');
    await Promise.allSettled([...notices]);
  });
  return queue;
}
