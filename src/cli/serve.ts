import type { Logger } from 'pino';
import { loadConfig, type ConfigOverrides } from '../config.js';
import { makeLogger } from '../open-context.js';
import { ensureDefaultRealm } from './bootstrap.js';
import { runPrimary, workerSlot } from './workers.js';

/**
 * `parley serve`: one process (the default), or with `workers` > 1 a primary that forks
 * that many of them on one port (workers.ts); each worker runs this same function.
 */
export async function serve(overrides: ConfigOverrides, opts: { workers?: number } = {}): Promise<void> {
  const slot = workerSlot();
  if (slot === undefined && (opts.workers ?? 1) > 1) return runPrimary(overrides, opts.workers!);
  // A worker's every log line names it; the primary made the default organization already.
  const log = slot === undefined ? undefined : makeLogger(loadConfig(overrides).logLevel).child({ worker: slot });
  try {
    await serveOne(overrides, slot, log);
  } catch (err) {
    // A worker says which one failed to start; the primary starts it again after a pause.
    if (log) log.error({ err }, `worker ${slot} failed to start`);
    throw err;
  }
}

/**
 * Worker N's metrics listen on PARLEY_METRICS_ADDR's port + N - 1: each worker has its own
 * counters, and on one shared port (Node's cluster shares a port between workers) each
 * scrape would reach a different worker.
 */
function workerOverrides(overrides: ConfigOverrides, slot: number | undefined): ConfigOverrides {
  if (slot === undefined) return overrides;
  const addr = loadConfig(overrides).metricsAddr;
  if (!addr || addr.port === 0) return overrides;
  return { ...overrides, metricsAddr: { host: addr.host, port: addr.port + slot - 1 } };
}

async function serveOne(overrides: ConfigOverrides, slot: number | undefined, log: Logger | undefined): Promise<void> {
  // Loaded here, not with the CLI: every other command runs without the server's modules.
  const { buildApp } = await import('../app.js');
  const app = await buildApp(workerOverrides(overrides, slot), log ? { log } : {});
  const { ctx } = app;
  if (slot === undefined) {
    const boot = await ensureDefaultRealm(ctx);
    if (boot.created) {
      ctx.log.info({ email: boot.email }, 'created the default organization and its owner');
      if (boot.generated) {
        // Printed once, on the first start only: the password is not stored anywhere readable.
        process.stdout.write(`\nFirst start: log in as ${boot.email} with password ${boot.password}\n\n`);
      }
    }
  }
  await app.http.listen({ host: ctx.config.host, port: ctx.config.port });
  ctx.log.info(`Parley ${slot === undefined ? '' : `worker ${slot} `}listening on http://${ctx.config.host}:${ctx.config.port} (${ctx.store.dialect.name}); public URL ${ctx.config.externalUrl}`);

  if (app.metricsUrl) ctx.log.info(`metrics on ${app.metricsUrl}/metrics`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      ctx.log.error('shutdown took too long, exiting');
      process.exit(1);
    }, 100_000);
    force.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
