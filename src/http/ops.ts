import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { readiness } from '../reads/server-health.js';
import { bearerMatches, exposition } from '../metrics/exposition.js';

/** Outside the API: answered on any Host, before any realm, never charged to a budget. */
export const HEALTH_PATH = '/health';
export const READY_PATH = '/ready';
export const METRICS_PATH = '/metrics';

const NOT_FOUND = { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' };
const ALIVE = JSON.stringify({ status: 'ok' });

/**
 * Load balancers' and orchestrators' probes, and Prometheus' scrape on the main port:
 * /health says the process answers (nothing is read); /ready, whether it should get
 * traffic (src/reads/server-health.ts); /metrics, only with PARLEY_METRICS_TOKEN.
 */
export function registerOpsRoutes(app: FastifyInstance, ctx: AppContext, isClosing: () => boolean): void {
  app.get(HEALTH_PATH, (_req, reply) => {
    void reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(ALIVE);
  });
  app.get(READY_PATH, async (_req, reply) => {
    const { ready, checks } = await readiness(ctx, isClosing());
    const failed = Object.entries(checks).filter(([name, v]) => v !== 'ok' && !(name === 'redis' && !ctx.cluster)).map(([name]) => name);
    return reply.status(ready ? 200 : 503).header('cache-control', 'no-store').send(ready ? { status: 'ok', checks } : { status: 'unavailable', failed, checks });
  });
  app.get(METRICS_PATH, async (req, reply) => {
    const token = ctx.config.metricsToken;
    // With only PARLEY_METRICS_ADDR, the metrics are on their own listener: here they do not exist.
    if (!ctx.metrics || token === undefined) return reply.status(404).send(NOT_FOUND);
    if (!bearerMatches(req.headers.authorization, token)) {
      return reply.status(401).header('www-authenticate', 'Bearer').send({ result: 'error', msg: 'Unauthorized', code: 'UNAUTHORIZED' });
    }
    const { contentType, body } = await exposition(ctx.metrics);
    return reply.type(contentType).header('cache-control', 'no-store').send(body);
  });
}
