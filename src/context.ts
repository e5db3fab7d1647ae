import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { EventBus } from './events/bus.js';
import type { Mailer } from './mail/mailer.js';
import type { Storage } from './uploads/storage.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { OutgoingWebhookQueue } from './outgoing-webhooks/types.js';
import type { ClusterLink } from './cluster/link.js';
import type { ScheduledDelivery } from './actions/scheduled-delivery.js';
import type { FullMemberPromotion } from './actions/full-members.js';
import type { Digests } from './notifications/digest.js';
import type { PushService } from './notifications/push.js';
import type { Notifications } from './notifications/start.js';
import type { ParleyMetrics } from './metrics/metrics.js';
import type { Jobs } from './jobs/scheduler.js';

/** Everything a handler or action needs, built once by buildApp. */
export interface AppContext {
  config: Config;
  store: Store;
  bus: EventBus;
  log: Logger;
  /** Outgoing mail (confirmation links): SMTP, or the file outbox. */
  mail: Mailer;
  /** Uploaded files and custom emoji images: the data directory or an object store. */
  storage: Storage;
  /** Request budgets (src/ratelimit/): in this process, or shared by a cluster's nodes. */
  limiter: RateLimiter;
  /** Present when this process is a node of a cluster (PARLEY_REDIS_URL): what the nodes share in Redis. */
  cluster?: ClusterLink;
  /**
   * Run as soon as shutdown begins, while in-flight requests finish: release anything
   * that would hold a request open (parked long-polls answer at once).
   */
  drainHooks: Array<() => void>;
  /**
   * Where sends hand outgoing-webhook bots their calls (startServices sets it). Absent in
   * the admin CLI, which exits before a call could be made: its messages call no webhook.
   */
  outgoingWebhooks?: OutgoingWebhookQueue;
  /** The scheduled-message delivery worker (startServices starts it): tests call its deliverDue with a later clock. */
  scheduledDelivery?: ScheduledDelivery;
  /** Members past the waiting period into role:fullmembers (src/actions/full-members.ts). */
  fullMembers?: FullMemberPromotion;
  /** The weekly digest job (src/notifications/digest.ts): tests call its sendDue with a later clock. */
  digests?: Digests;
  /**
   * The outbox of calls to Zulip's push notification service (startServices starts it when
   * PARLEY_PUSH_BOUNCER_URL is set): tests call its runDue with a later clock.
   */
  push?: PushService;
  /** Missed-message notifications (src/notifications/start.ts): tests call decideNow and runDue with a later clock. */
  notifications?: Notifications;
  /** Prometheus metrics, when PARLEY_METRICS_ADDR or PARLEY_METRICS_TOKEN asks for them (src/metrics/). */
  metrics?: ParleyMetrics;
  /** The periodic background jobs (src/jobs/scheduler.ts; absent with backgroundJobs off): `parley` commands and tests call runNow. */
  jobs?: Jobs;
  /** Run after the HTTP server has closed, before the store closes (queue persistence, ...). */
  shutdownHooks: Array<() => Promise<void>>;
}
