/**
 * Reduces the per-second measurements of a window to the figures of Mattermost's pass
 * criteria and prints the tables.
 */
import os from 'node:os';
import { emptyHist, mean, merge, quantile, type Hist } from './histogram.js';

export const CRITERIA = { avgMs: 100, p99Ms: 2000, errorRate: 0.00025 };
/** The long poll is held open by design: its errors count, its duration does not. */
export const HELD_OPEN = new Set(['events']);

export interface Second { at: number; ops: Record<string, { hist: Hist; errors: number }>; delivery: Hist; eldP99: number; genCpuMs: number; users: number; ready: number }

export interface OpFigures { op: string; count: number; avg: number; p50: number; p99: number; errors: number }
export interface WindowFigures {
  users: number; seconds: number; ops: OpFigures[]; all: OpFigures; errorRate: number; delivery: { count: number; p50: number; p99: number; max: number };
  genEldP99: number; genEldMax: number; genCpuPct: number; serverCpuPct: number | undefined; serverThreads: Array<[string, number]>; passes: boolean; generatorLate: boolean;
  /** The machine's 1-minute load average at the window's end: other work on these cores shows here. */
  loadAvg: number;
}

export function mergeOps(seconds: Second[]): Map<string, { hist: Hist; errors: number }> {
  const out = new Map<string, { hist: Hist; errors: number }>();
  for (const s of seconds) {
    for (const [op, o] of Object.entries(s.ops)) {
      const m = out.get(op) ?? { hist: emptyHist(), errors: 0 };
      merge(m.hist, o.hist);
      m.errors += o.errors;
      out.set(op, m);
    }
  }
  return out;
}

export const figuresOf = (op: string, o: { hist: Hist; errors: number }): OpFigures =>
  ({ op, count: o.hist.n, avg: mean(o.hist), p50: quantile(o.hist, 0.5), p99: quantile(o.hist, 0.99), errors: o.errors });

export function windowFigures(seconds: Second[], gen: { eldP99: number; eldMax: number; cpuMs: number }, server: { cpuMs: number | undefined; threads: Array<[string, number]> }, wallMs: number): WindowFigures {
  const ops = mergeOps(seconds);
  const timed = { hist: emptyHist(), errors: 0 };
  let errors = 0;
  let count = 0;
  for (const [op, o] of ops) {
    errors += o.errors;
    count += o.hist.n;
    if (!HELD_OPEN.has(op)) merge(timed.hist, o.hist);
  }
  const delivery = seconds.reduce((h, s) => merge(h, s.delivery), emptyHist());
  const all = { ...figuresOf('all (held polls excluded)', timed), errors };
  const errorRate = count === 0 ? 0 : errors / count;
  const generatorLate = gen.eldP99 > 50;
  return {
    users: Math.max(0, ...seconds.map((s) => s.users)), seconds: wallMs / 1000,
    ops: [...ops].map(([op, o]) => figuresOf(op, o)).sort((a, b) => b.count - a.count), all, errorRate,
    delivery: { count: delivery.n, p50: quantile(delivery, 0.5), p99: quantile(delivery, 0.99), max: delivery.max },
    genEldP99: gen.eldP99, genEldMax: gen.eldMax, genCpuPct: (100 * gen.cpuMs) / wallMs,
    serverCpuPct: server.cpuMs === undefined ? undefined : (100 * server.cpuMs) / wallMs, serverThreads: server.threads,
    loadAvg: os.loadavg()[0]!,
    passes: all.avg <= CRITERIA.avgMs && all.p99 <= CRITERIA.p99Ms && errorRate <= CRITERIA.errorRate, generatorLate,
  };
}

export function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  ');
  return `${fmt(head)}\n${fmt(w.map((n) => '-'.repeat(n)))}\n${rows.map(fmt).join('\n')}\n`;
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function opTable(ops: OpFigures[], seconds: number): string {
  return table(['operation', 'count', '/s', 'avg ms', 'p50 ms', 'p99 ms', 'errors'],
    ops.map((o) => [o.op, String(o.count), (o.count / seconds).toFixed(1), ms(o.avg), ms(o.p50), ms(o.p99), String(o.errors)]));
}

export function stepTable(steps: WindowFigures[]): string {
  return table(['users', 'req/s', 'avg ms', 'p99 ms', 'errors %', 'deliv p50', 'deliv p99', 'gen ELD p99', 'gen CPU %', 'server CPU %', 'load avg', 'pass'],
    steps.map((s) => [String(s.users), (s.all.count / s.seconds).toFixed(0), ms(s.all.avg), ms(s.all.p99), (s.errorRate * 100).toFixed(3),
      ms(s.delivery.p50), ms(s.delivery.p99), ms(s.genEldP99), s.genCpuPct.toFixed(0), s.serverCpuPct === undefined ? '-' : s.serverCpuPct.toFixed(0), s.loadAvg.toFixed(1),
      s.generatorLate ? 'generator late' : s.passes ? 'yes' : 'no']));
}
