/**
 * Config, store, bus, mail and uploads without HTTP: what the CLI's commands run on, and what
 * the server builds on (app.ts). Kept apart from the server so that a command loads none of
 * it (HTTP, routes, metrics, background services), and Redis's client only with Redis:
 * `parley import` holds its memory bound partly by what it never loads (docs/performance.md).
 */
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { loadConfig, type Config, type ConfigOverrides } from './config.js';
import type { AppContext } from './context.js';
import { createMailer } from './mail/mailer.js';
import { createStorage } from './uploads/create-storage.js';
import { openStore } from './store/db.js';
import { ensurePrivateDir } from './lib/private-files.js';
import { InProcessBus, type EventBus } from './events/bus.js';
import { InMemoryRateLimiter } from './ratelimit/memory.js';
import { UNLIMITED, type RateLimiter } from './ratelimit/limiter.js';
import { setPasswordHashCost } from './lib/secrets.js';

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
  const limiter = deps.limiter ?? await makeLimiter(config, log, shutdownHooks);
  // A cluster node (Redis with PostgreSQL) hears every node's events through Redis; one
  // process, through itself. Redis beside SQLite only shares budgets (one process's data).
  const cluster = config.redisUrl && config.databaseUrl && !deps.bus ? await (await import('./cluster/link.js')).joinCluster(config, log) : undefined;
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
async function makeLimiter(config: Config, log: Logger, shutdownHooks: AppContext['shutdownHooks']): Promise<RateLimiter> {
  if (!config.rateLimiting) return UNLIMITED;
  if (!config.redisUrl) return new InMemoryRateLimiter(config.rateLimits);
  const { RedisRateLimiter } = await import('./ratelimit/redis.js');
  const limiter = new RedisRateLimiter(config.rateLimits, { url: config.redisUrl, log });
  shutdownHooks.push(() => limiter.close());
  return limiter;
}
