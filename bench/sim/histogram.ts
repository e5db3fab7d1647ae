/**
 * Latency histogram with logarithmic buckets (3 % wide from 0.1 ms): small to send between
 * processes every second and mergeable, so percentiles over any window and any number of
 * load-generator workers come out of the same counts. The sum is exact, for the average.
 */
const BASE = 0.1;
const GROWTH = Math.log(1.03);

export interface Hist { n: number; sum: number; max: number; buckets: Record<number, number> }

export const emptyHist = (): Hist => ({ n: 0, sum: 0, max: 0, buckets: {} });

export function record(h: Hist, ms: number): void {
  const i = ms <= BASE ? 0 : Math.ceil(Math.log(ms / BASE) / GROWTH);
  h.buckets[i] = (h.buckets[i] ?? 0) + 1;
  h.n++;
  h.sum += ms;
  if (ms > h.max) h.max = ms;
}

export function merge(into: Hist, from: Hist): Hist {
  for (const [k, v] of Object.entries(from.buckets)) into.buckets[Number(k)] = (into.buckets[Number(k)] ?? 0) + v;
  into.n += from.n;
  into.sum += from.sum;
  into.max = Math.max(into.max, from.max);
  return into;
}

/** The upper edge of the bucket holding the p-th quantile (so at most 3 % high). */
export function quantile(h: Hist, p: number): number {
  if (h.n === 0) return 0;
  const want = Math.ceil(h.n * p);
  let seen = 0;
  for (const k of Object.keys(h.buckets).map(Number).sort((a, b) => a - b)) {
    seen += h.buckets[k]!;
    if (seen >= want) return Math.min(h.max, BASE * Math.exp(k * GROWTH));
  }
  return h.max;
}

export const mean = (h: Hist): number => (h.n === 0 ? 0 : h.sum / h.n);
