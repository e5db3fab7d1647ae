import type { AppContext } from '../context.js';
import { serverHealth } from '../store/repos/server-health.js';

/** One readiness check's finding: `ok`, or a short reason fit for an unauthenticated answer. */
export type CheckResult = 'ok' | string;

export interface Readiness {
  ready: boolean;
  checks: { store: CheckResult; migrations: CheckResult; redis: CheckResult; shutdown: CheckResult };
}

/** A database that takes longer than this to answer SELECT 1 is not ready: the balancer's probe must not hang with it. */
const STORE_TIMEOUT_MS = 2_000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Whether this process should get traffic: its store answers and has every migration this
 * build expects, its cluster's Redis is connected (a node that cannot reach Redis neither
 * hears nor is heard), and it is not shutting down. Reasons only name what failed; details
 * (a connection error's text may name hosts) go to the log.
 */
export async function readiness(ctx: AppContext, stopping: boolean): Promise<Readiness> {
  const checks: Readiness['checks'] = { store: 'ok', migrations: 'ok', redis: 'ok', shutdown: stopping ? 'shutting down' : 'ok' };
  try {
    await within(serverHealth.ping(ctx.store.db), STORE_TIMEOUT_MS);
    const missing = await within(serverHealth.missingMigrations(ctx.store.db), STORE_TIMEOUT_MS);
    if (missing.length > 0) checks.migrations = `${missing.length} not applied`;
  } catch (err) {
    ctx.log.warn({ err }, 'readiness: the store did not answer');
    checks.store = 'unreachable';
    checks.migrations = 'unknown';
  }
  if (!ctx.cluster) checks.redis = 'not in a cluster';
  else if (ctx.cluster.redis.status !== 'ready') checks.redis = `disconnected (${ctx.cluster.redis.status})`;
  const ready = checks.store === 'ok' && checks.migrations === 'ok' && (checks.redis === 'ok' || !ctx.cluster) && !stopping;
  return { ready, checks };
}
