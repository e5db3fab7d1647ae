import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { loadConfig, type Config, type ConfigOverrides } from '../config.js';
import { makeLogger, openContext } from '../open-context.js';
import { ensureDefaultRealm } from './bootstrap.js';

/** The environment variable that tells a forked process which worker it is (1..N, kept by its replacements). */
export const WORKER_SLOT_ENV = 'PARLEY_WORKER';

/** This process's worker number when `serve --workers N` forked it, else undefined. */
export function workerSlot(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const slot = Number(process.env[WORKER_SLOT_ENV]);
  return Number.isInteger(slot) && slot > 0 ? slot : cluster.worker?.id;
}

/** `--workers` or PARLEY_WORKERS: how many server processes; 1 (one process, no cluster) by default. */
export function parseWorkers(value: unknown): number {
  const text = value === undefined || value === '' ? process.env.PARLEY_WORKERS : String(value);
  if (text === undefined || text.trim() === '') return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`parley: --workers (PARLEY_WORKERS) must be a whole number of at least 1, got '${text}'`);
  return n;
}

/**
 * Why N processes cannot serve this configuration, or undefined. SQLite is one process's
 * (each would hold its own writer); without Redis the processes would not hear each
 * other's events, share queues or budgets, and a client landing on another worker would
 * miss its messages.
 */
export function workersRefusal(config: Config, workers: number): string | undefined {
  if (workers <= 1) return undefined;
  const missing = [
    config.databaseUrl ? undefined : 'a PostgreSQL database (--database-url, PARLEY_DATABASE_URL)',
    config.redisUrl ? undefined : 'Redis (--redis-url, PARLEY_REDIS_URL)',
  ].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `parley: --workers ${workers} needs ${missing.join(' and ')} shared by the workers; SQLite and a server without Redis are one process's`;
}

/** A crashing worker is started again after this pause, doubling while it keeps crashing soon after start. */
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that ran this long before it died was not crash-looping: its replacement starts at once. */
const STABLE_AFTER_MS = 30_000;
/** How long the workers may take to finish their requests and shut down before the primary gives up on them. */
const STOP_TIMEOUT_MS = 110_000;

interface Slot {
  slot: number;
  worker?: Worker;
  startedAt: number;
  delayMs: number;
  timer?: NodeJS.Timeout;
}

/**
 * The primary of `parley serve --workers N`: makes sure the default organization exists
 * (once, before any worker starts, so that they never race to create it), then forks N
 * workers that each build the whole server and listen on the same host and port (Node's
 * cluster module hands them the connections of the one listening socket). It answers no
 * request itself. A worker that dies is replaced; SIGTERM/SIGINT stop every worker
 * gracefully, and the primary exits once they all have.
 */
export async function runPrimary(overrides: ConfigOverrides, workers: number): Promise<void> {
  const config = loadConfig(overrides);
  const refusal = workersRefusal(config, workers);
  if (refusal) throw new Error(refusal);
  const log = makeLogger(config.logLevel).child({ role: 'primary' });
  await bootstrap(overrides, log);

  const slots: Slot[] = Array.from({ length: workers }, (_, i) => ({ slot: i + 1, startedAt: 0, delayMs: 0 }));
  let stopping = false;
  let failed = false;

  const fork = (s: Slot): void => {
    s.timer = undefined;
    s.startedAt = Date.now();
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(s.slot) });
    s.worker = worker;
    log.info({ worker: s.slot, workerPid: worker.process.pid }, `worker ${s.slot} starting`);
    worker.on('listening', () => log.info({ worker: s.slot, workerPid: worker.process.pid }, `worker ${s.slot} listening`));
    worker.on('exit', (code, signal) => {
      if (s.worker === worker) s.worker = undefined;
      if (stopping) {
        // Killed by the SIGTERM it was sent before its handler was installed (still starting): it had no requests.
        if (code !== 0 && signal !== 'SIGTERM') failed = true;
        log.info({ worker: s.slot, workerPid: worker.process.pid, code, signal }, `worker ${s.slot} stopped`);
        if (slots.every((x) => !x.worker)) finish();
        return;
      }
      const lived = Date.now() - s.startedAt;
      s.delayMs = lived >= STABLE_AFTER_MS ? 0 : Math.min(MAX_RESTART_DELAY_MS, s.delayMs === 0 ? FIRST_RESTART_DELAY_MS : s.delayMs * 2);
      log.error({ worker: s.slot, workerPid: worker.process.pid, code, signal, livedMs: lived, restartInMs: s.delayMs },
        `worker ${s.slot} died (${signal ?? `exit code ${code}`}); replacing it in ${s.delayMs} ms`);
      s.timer = setTimeout(() => fork(s), s.delayMs);
    });
  };

  const finish = (): void => {
    log.info('all workers stopped');
    // The log is written asynchronously: out before the process ends.
    log.flush(() => process.exit(failed ? 1 : 0));
  };

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: each worker finishes its requests and stops');
    for (const s of slots) {
      if (s.timer) clearTimeout(s.timer);
      s.timer = undefined;
      // Each worker runs its own graceful shutdown on SIGTERM (serve.ts), as a lone server does.
      s.worker?.process.kill('SIGTERM');
    }
    if (slots.every((x) => !x.worker)) finish();
    const force = setTimeout(() => {
      log.error('workers took too long to stop; killing them');
      for (const s of slots) s.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, STOP_TIMEOUT_MS);
    force.unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  log.info({ workers, host: config.host, port: config.port }, `starting ${workers} workers on http://${config.host}:${config.port}`);
  for (const s of slots) fork(s);
}

/** The default organization, made once by the primary in a context of its own, closed before the workers start. */
async function bootstrap(overrides: ConfigOverrides, log: Logger): Promise<void> {
  const ctx = await openContext(overrides, { log });
  try {
    const boot = await ensureDefaultRealm(ctx);
    if (boot.created) {
      log.info({ email: boot.email }, 'created the default organization and its owner');
      // Printed once, on the first start only: the password is not stored anywhere readable.
      if (boot.generated) process.stdout.write(`\nFirst start: log in as ${boot.email} with password ${boot.password}\n\n`);
    }
  } finally {
    for (const hook of ctx.shutdownHooks) await hook().catch((err: unknown) => log.error({ err }, 'shutdown hook failed'));
    await ctx.bus.close();
    await ctx.store.close();
  }
}
