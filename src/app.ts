import type { FastifyInstance } from 'fastify';
import type { ConfigOverrides } from './config.js';
import type { AppContext } from './context.js';
import type { EventBus } from './events/bus.js';
import { buildHttp } from './http/app.js';
import { startServices } from './wiring.js';
import type { MissedMessageSenders } from './notifications/senders.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { metricsWanted, startMetrics } from './metrics/metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import { openContext } from './open-context.js';
import type { Logger } from 'pino';

export interface App {
  ctx: AppContext;
  http: FastifyInstance;
  /** The metrics' own listener (PARLEY_METRICS_ADDR), e.g. `http://127.0.0.1:9464`. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
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
