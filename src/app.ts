import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config, type ConfigOverrides } from './config.js';
import type { AppContext } from './context.js';
import { createMailer } from './mail/mailer.js';
import { createStorage } from './uploads/create-storage.js';
import { openStore } from './store/db.js';
import { ensurePrivateDir } from './lib/private-files.js';
import { InProcessBus, type EventBus } from './events/bus.js';
import { buildHttp } from './http/app.js';
import { startServices } from './wiring.js';
import type { MissedMessageSenders } from './notifications/senders.js';
import { InMemoryRateLimiter } from './ratelimit/memory.js';
import { RedisRateLimiter } from './ratelimit/redis.js';
import { UNLIMITED, type RateLimiter } from './ratelimit/limiter.js';
import { setPasswordHashCost } from './lib/secrets.js';
import { joinCluster } from './cluster/link.js';
import { metricsWanted, startMetrics } from './metrics/metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';

export interface App {
  ctx: AppContext;
  http: FastifyInstance;
  /** The metrics' own listener (PARLEY_METRICS_ADDR), e.g. `http://127.0.0.1:9464`. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

export function makeLogger(level: string): Logger {
  if (level !== 'silent' && process.stdout.isTTY) {
    return pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  return pino({ level });
}

/** Config, store and bus without HTTP: what the admin CLI commands run on. */
export async function openContext(overrides: ConfigOverrides = {}, deps: { log?: Logger; bus?: EventBus; limiter?: RateLimiter } = {}): Promise<AppContext> {
  const config: Config = loadConfig(overrides);
  setPasswordHashCost({ memoryKib: config.passwordHashMemoryKib, timeCost: config.passwordHashTimeCost });
  const log = deps.log ?? makeLogger(config.logLevel);
  if (config.passwordHashMemoryKib < 19_456 || config.passwordHashTimeCost < 2) {
    log.warn({ memoryKib: config.passwordHashMemoryKib, timeCost: config.passwordHashTimeCost }, 'password hashes below OWASP\'s minimum Argon2id cost (19456 KiB, 2 passes): for tests only');
  }
  ensurePrivateDir(config.dataDir);
  const store = await openStore({
    databaseUrl: config.databaseUrl, sqlitePath: path.join(config.dataDir, 'parley.db'), cacheMib: config.sqliteCacheMib,
    onError: (message) => log.warn({ message }, 'background WAL checkpoint failed'),
  });
  const mail = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: path.join(config.dataDir, 'outbox') }, log);
  const storage = await createStorage(config);
  const shutdownHooks: AppContext['shutdownHooks'] = [];
  const limiter = deps.limiter ?? makeLimiter(config, log, shutdownHooks);
  // A cluster node (Redis with PostgreSQL) hears every node's events through Redis; one
  // process, through itself. Redis beside SQLite only shares budgets (one process's data).
  const cluster = config.redisUrl && config.databaseUrl && !deps.bus ? await joinCluster(config, log) : undefined;
  return {
    config, store, bus: deps.bus ?? cluster?.bus ?? new InProcessBus(), log, mail, storage, limiter, drainHooks: [], shutdownHooks,
    ...(cluster ? { cluster } : {}),
  };
}

/**
 * Request budgets: in Redis when there is one, so that every node of a cluster counts in
 * the same budgets (src/ratelimit/redis.ts: it connects on its first count, so commands
 * that never count open no connection), in this process's memory otherwise.
 */
function makeLimiter(config: Config, log: Logger, shutdownHooks: AppContext['shutdownHooks']): RateLimiter {
  if (!config.rateLimiting) return UNLIMITED;
  if (!config.redisUrl) return new InMemoryRateLimiter(config.rateLimits);
  const limiter = new RedisRateLimiter(config.rateLimits, { url: config.redisUrl, log });
  shutdownHooks.push(() => limiter.close());
  return limiter;
}

/** Builds the whole server without listening; tests, the CLI and main all use it. */
export async function buildApp(
  overrides: ConfigOverrides = {},
  deps: { log?: Logger; bus?: EventBus; limiter?: RateLimiter; notificationSenders?: MissedMessageSenders } = {},
): Promise<App> {
  const ctx = await openContext(overrides, deps);
  const { log, store } = ctx;
  startServices(ctx, deps.notificationSenders);
  // Before the HTTP server: it times every request from the first.
  if (metricsWanted(ctx)) ctx.metrics = startMetrics(ctx);
  const http = await buildHttp(ctx);
  let listener: MetricsListener | undefined;
  if (ctx.metrics && ctx.config.metricsAddr) {
    try {
      listener = await startMetricsListener(ctx.config.metricsAddr, ctx.metrics, ctx.config.metricsToken, log);
    } catch (err) {
      // `parley serve` exits on this; nothing is left half-started that outlives the process.
      throw new Error(`cannot serve metrics on PARLEY_METRICS_ADDR ${ctx.config.metricsAddr.host}:${ctx.config.metricsAddr.port}: ${(err as Error).message}`, { cause: err });
    }
  }
  let closed = false;
  return {
    ctx,
    http,
    metricsUrl: listener?.url,
    close: async () => {
      if (closed) return;
      closed = true;
      const closing = http.close();
      for (const hook of ctx.drainHooks) hook();
      // Keep-alive connections that go idle after close began would otherwise hold it open.
      const reaper = setInterval(() => http.server.closeIdleConnections(), 50);
      try {
        await closing;
      } finally {
        clearInterval(reaper);
      }
      for (const hook of ctx.shutdownHooks) {
        try {
          await hook();
        } catch (err) {
          log.error({ err }, 'shutdown hook failed');
        }
      }
      await listener?.close();
      await ctx.bus.close();
      // After every hook: the notification worker's last sends still use the pooled SMTP connections.
      ctx.mail.close();
      await store.close();
    },
  };
}
