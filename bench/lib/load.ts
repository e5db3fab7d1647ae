import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Drives one URL with autocannon and reduces the result to the figures docs/performance.md reports. */
export async function load(label: string, opts: { url: string; connections?: number; duration?: number; headers?: Record<string, string>; method?: string; body?: string }): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url, connections: opts.connections ?? 50, duration: opts.duration ?? 8,
    headers: opts.headers ?? {}, method: (opts.method ?? 'GET') as 'GET', ...(opts.body ? { body: opts.body } : {}),
  });
  return { label, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export function printTable(rows: LoadResult[], extra: Record<string, string> = {}): void {
  const head = ['case', 'req/s', 'p50 ms', 'p99 ms', 'errors', ...Object.keys(extra)];
  const lines = rows.map((r) => [r.label, String(r.rps), String(r.p50), String(r.p99), String(r.errors + r.non2xx)]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(`${fmt(head)}\n${fmt(widths.map((w) => '-'.repeat(w)))}\n${lines.map(fmt).join('\n')}\n`);
}
