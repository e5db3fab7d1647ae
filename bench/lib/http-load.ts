import http from 'node:http';

export interface LoadStats { label: string; requests: number; rps: number; p50: number; p99: number; errors: number }

/**
 * Closed-loop load with per-request bodies and credentials (autocannon sends one fixed
 * request): `concurrency` workers each send, wait for the answer, send again. With
 * `rate`, the workers together start `rate` requests a second on a fixed schedule instead,
 * and latency counts from each request's scheduled start: a stalled server then shows in
 * the figures rather than slowing the schedule (no coordinated omission).
 */
export async function runLoad(label: string, opts: {
  base: string; concurrency: number; durationMs: number;
  /** Ends the run early (before durationMs) once it answers true: e.g. when background work is done. */
  stop?: () => boolean;
  /** Requests per second in all, on a schedule (open loop); absent: as fast as answers come. */
  rate?: number;
  request: (worker: number, i: number) => { method: string; path: string; auth: string; body?: string };
  /** Figures so far, every `everyMs`: a run of an hour still tells something if cut short. */
  progress?: { everyMs: number; report: (soFar: LoadStats) => void };
}): Promise<LoadStats> {
  const url = new URL(opts.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + opts.durationMs;
  const one = (r: ReturnType<typeof opts.request>, t0 = performance.now()) => new Promise<void>((resolve) => {
    const req = http.request({
      host: url.hostname, port: url.port, method: r.method, path: r.path, agent,
      headers: { authorization: r.auth, ...(r.body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(r.body) } : {}) },
    }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - t0);
        resolve();
      });
    });
    req.on('error', () => { errors++; resolve(); });
    if (r.body) req.write(r.body);
    req.end();
  });
  const started = Date.now();
  const origin = performance.now();
  const stats = (sorted: number[]): LoadStats => {
    const pct = (p: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 10) / 10;
    return { label, requests: sorted.length, rps: Math.round(sorted.length / ((Date.now() - started) / 1000)), p50: pct(0.5), p99: pct(0.99), errors };
  };
  const ticker = opts.progress && setInterval(() => opts.progress!.report(stats([...latencies].sort((a, b) => a - b))), opts.progress.everyMs);
  await Promise.all(Array.from({ length: opts.concurrency }, async (_, w) => {
    for (let i = 0; Date.now() < end && !opts.stop?.(); i++) {
      if (opts.rate === undefined) {
        await one(opts.request(w, i));
        continue;
      }
      const due = origin + ((i * opts.concurrency + w) * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await one(opts.request(w, i), due);
    }
  }));
  if (ticker) clearInterval(ticker);
  agent.destroy();
  return stats(latencies.sort((a, b) => a - b));
}

export function printStats(rows: LoadStats[]): void {
  const head = ['case', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors'];
  const lines = rows.map((r) => [r.label, String(r.rps), String(r.p50), String(r.p99), String(r.requests), String(r.errors)]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => c.map((x, i) => x.padEnd(w[i]!)).join('  ');
  process.stdout.write(`${fmt(head)}\n${fmt(w.map((n) => '-'.repeat(n)))}\n${lines.map(fmt).join('\n')}\n`);
}
