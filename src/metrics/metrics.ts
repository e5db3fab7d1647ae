import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../context.js';
import { queuesIfInstalled } from '../events/manager.js';
import { observeWrites, queuedWrites } from '../store/group-commit.js';
import { serverHealth } from '../store/repos/server-health.js';
import { HttpSeries } from './http-series.js';
import { countingRefusals } from './limiter.js';

/** Batch sizes run from one send to the writer's MAX_BATCH. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** This server's metrics: one registry per app, so that several apps in one process (tests) never share a series. */
export interface ParleyMetrics {
  readonly registry: Registry;
  /** One answered request (see HttpSeries.observe). */
  request(method: string, route: string | undefined, status: number, seconds: number): void;
}

/** Whether this configuration asks for metrics: an address of their own, a token, or both. */
export function metricsWanted(ctx: AppContext): boolean {
  return ctx.config.metricsAddr !== undefined || ctx.config.metricsToken !== undefined;
}

/**
 * Makes the registry and hooks the counters into the store, the limiter and the event
 * queues. Values the server already keeps (queue sizes, the pool's counts, the bus's lag)
 * are read when Prometheus scrapes, not maintained on every change.
 */
export function startMetrics(ctx: AppContext): ParleyMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Event-loop delay, memory, GC pauses, CPU, handles: prom-client's standard names.
  collectDefaultMetrics({ register: registry });

  const http = new HttpSeries(registry);
  const sent = new Counter({ name: 'parley_messages_sent_total', help: 'Messages stored by the send path (API, bots, webhooks, scheduled)', registers });
  const batches = new Histogram({ name: 'parley_store_write_batch_size', help: 'Sends per group-commit batch', buckets: BATCH_BUCKETS, registers });
  const sendWait = new Histogram({ name: 'parley_store_send_wait_seconds', help: 'Time from a send joining the writer\'s queue to its batch\'s commit', buckets: WAIT_BUCKETS, registers });
  const lockWait = new Histogram({ name: 'parley_store_writer_lock_wait_seconds', help: 'SQLite: time a transaction waited for the writer held by another', buckets: WAIT_BUCKETS, registers });
  observeWrites(ctx.store, {
    batch: (size, stored) => {
      batches.observe(size);
      if (stored > 0) sent.inc(stored);
    },
    sendWait: (s) => sendWait.observe(s),
    lockWait: (s) => lockWait.observe(s),
  });
  new Gauge({ name: 'parley_store_write_queue', help: 'Sends (and on SQLite, transactions) waiting for the writer', registers, collect() { this.set(queuedWrites(ctx.store)); } });

  const pool = ctx.store.pool;
  if (pool) {
    new Gauge({
      name: 'parley_pg_pool_connections', help: 'PostgreSQL pool connections, by state (total open, idle)', labelNames: ['state'], registers,
      collect() {
        this.labels('total').set(pool.totalCount);
        this.labels('idle').set(pool.idleCount);
      },
    });
    new Gauge({ name: 'parley_pg_pool_waiting', help: 'Queries waiting for a PostgreSQL pool connection', registers, collect() { this.set(pool.waitingCount); } });
  }

  const refusals = new Counter({ name: 'parley_rate_limit_refusals_total', help: 'Requests refused for a spent budget (429), by budget', labelNames: ['domain'], registers });
  ctx.limiter = countingRefusals(ctx.limiter, refusals);

  new Gauge({ name: 'parley_event_queues', help: 'Event queues held by this process', registers, collect() { this.set(queuesIfInstalled(ctx)?.size ?? 0); } });
  new Gauge({ name: 'parley_event_polls_parked', help: 'Long polls (GET /events) waiting for an event', registers, collect() { this.set(queuesIfInstalled(ctx)?.parked() ?? 0); } });
  let delivered = 0;
  new Counter({
    name: 'parley_events_delivered_total', help: 'Events put on this process\'s queues (one per queue; heartbeats not counted)', registers,
    collect() {
      const now = queuesIfInstalled(ctx)?.delivered ?? delivered;
      if (now > delivered) this.inc(now - delivered);
      delivered = now;
    },
  });

  new Gauge({ name: 'parley_outgoing_webhook_queue', help: 'Outgoing-webhook calls accepted and not finished (waiting, running or between tries)', registers, collect() { this.set(ctx.outgoingWebhooks?.pending ?? 0); } });
  new Gauge({
    name: 'parley_notification_outbox', help: 'Work waiting in the database: missed-message notifications by kind (email, push), and calls to the push service (kind="push_service")',
    labelNames: ['kind'], registers,
    async collect() {
      try {
        const depths = await serverHealth.outboxDepths(ctx.store.db);
        this.reset();
        for (const { kind, n } of depths.notifications) this.labels(kind).set(n);
        this.labels('push_service').set(depths.pushCalls);
      } catch (err) {
        // A scrape answers without this gauge's news rather than failing whole.
        ctx.log.warn({ err }, 'metrics: could not count the notification outbox');
      }
    },
  });

  const cluster = ctx.cluster;
  if (cluster) {
    new Gauge({ name: 'parley_cluster_redis_connected', help: 'Whether this node\'s Redis command connection is ready (1) or not (0)', registers, collect() { this.set(cluster.redis.status === 'ready' ? 1 : 0); } });
    new Gauge({ name: 'parley_cluster_bus_lag_seconds', help: 'How long ago Redis stamped the newest bus entry this node has heard, at its last read (0 when idle)', registers, collect() { this.set(cluster.bus.lagMs / 1000); } });
    new Gauge({ name: 'parley_cluster_bus_appending', help: 'Events this node sent to the bus that Redis has not acknowledged yet', registers, collect() { this.set(cluster.bus.appending); } });
  }

  return { registry, request: (method, route, status, seconds) => http.observe(method, route, status, seconds) };
}
