import { Counter, Histogram, type Registry } from 'prom-client';

/** Latency buckets in seconds: a send takes milliseconds, a parked long poll up to 90 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90];

/** The label of a request no route matched: the raw URL would let any scanner make series. */
export const UNMATCHED = '(unmatched)';

interface RouteSeries {
  latency: { observe(value: number): void };
  byStatus: Map<number, { inc(): void }>;
}

/**
 * Requests by route and status, and their latency by route. A request costs two map
 * lookups and two increments: each (method, route) pair's children are made once, on its
 * first request, rather than a label object per request.
 */
export class HttpSeries {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly byMethod = new Map<string, Map<string, RouteSeries>>();

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'parley_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'], registers: [registry],
    });
    this.latency = new Histogram({
      name: 'parley_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer (long polls included), by method and route pattern',
      labelNames: ['method', 'route'], buckets: LATENCY_BUCKETS, registers: [registry],
    });
  }

  /** `route`: the matched route's declared path (`/api/v1/messages/:message_id`), undefined when none matched. */
  observe(method: string, route: string | undefined, status: number, seconds: number): void {
    let routes = this.byMethod.get(method);
    if (!routes) this.byMethod.set(method, (routes = new Map()));
    const pattern = route ?? UNMATCHED;
    let series = routes.get(pattern);
    if (!series) routes.set(pattern, (series = { latency: this.latency.labels(method, pattern), byStatus: new Map() }));
    let counter = series.byStatus.get(status);
    if (!counter) series.byStatus.set(status, (counter = this.requests.labels(method, pattern, String(status))));
    counter.inc();
    series.latency.observe(seconds);
  }
}
