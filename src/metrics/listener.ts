import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { MetricsAddr } from '../config.js';
import type { ParleyMetrics } from './metrics.js';
import { bearerMatches, exposition } from './exposition.js';

export interface MetricsListener {
  /** Where it listens, e.g. `http://127.0.0.1:9464` (the port chosen when asked for 0). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * PARLEY_METRICS_ADDR: a small server of its own that answers GET /metrics and nothing
 * else, so that the metrics can stay on a private interface while the API is public. With
 * PARLEY_METRICS_TOKEN set too, it asks for the token as the main port does.
 */
export async function startMetricsListener(addr: MetricsAddr, metrics: ParleyMetrics, token: string | undefined, log: Logger): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return answer(404, 'Not Found\n');
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return answer(401, 'Unauthorized\n');
    }
    exposition(metrics).then(({ contentType, body }) => answer(200, body, contentType), (err: unknown) => {
      log.error({ err }, 'metrics: could not collect');
      answer(500, 'Internal Server Error\n');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
