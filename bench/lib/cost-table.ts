/**
 * The tables bench/cluster-cost.ts prints: server CPU per operation in each setup with the
 * ratios to the single process (issue 24's target: at most 1.3×), then what Redis,
 * PostgreSQL and the load generator spent per operation, and the throughput reached.
 */

export interface Run {
  setup: string;
  label: string;
  ops: number;
  wall: number;
  /** CPU ms of each server process over the measured run. */
  nodeMs: number[];
  redisMs: number | undefined;
  pgMs: number | undefined;
  genMs: number;
  /** Message events per poll answer (1 when each poll answered with exactly one event). */
  eventsPerAnswer?: number;
  /** What Redis gained over the warm-up and the window, and the operations that made it. */
  redis?: { opsWithWarmUp: number; memory: number; keys: number; entries: number };
}

/** Adds one window's figures to the run of the same setup and operation. */
export function addRun(runs: Run[], w: Run): void {
  const r = runs.find((x) => x.setup === w.setup && x.label === w.label);
  if (!r) {
    runs.push({ ...w, nodeMs: [...w.nodeMs], redis: w.redis && { ...w.redis } });
    return;
  }
  const sum = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined ? undefined : x + y);
  r.ops += w.ops;
  r.wall += w.wall;
  r.nodeMs = r.nodeMs.map((ms, i) => ms + w.nodeMs[i]!);
  r.redisMs = sum(r.redisMs, w.redisMs);
  r.pgMs = sum(r.pgMs, w.pgMs);
  r.genMs += w.genMs;
  r.eventsPerAnswer = w.eventsPerAnswer;
  if (r.redis && w.redis) for (const k of ['opsWithWarmUp', 'memory', 'keys', 'entries'] as const) r.redis[k] += w.redis[k];
}

interface PerOp { node: number; redis: number | undefined; pg: number | undefined; gen: number; rate: number; epa?: number }

const perOp = (r: Run): PerOp => ({
  node: r.nodeMs.reduce((a, b) => a + b, 0) / r.ops, redis: r.redisMs === undefined ? undefined : r.redisMs / r.ops,
  pg: r.pgMs === undefined ? undefined : r.pgMs / r.ops, gen: r.genMs / r.ops, rate: r.ops / r.wall, epa: r.eventsPerAnswer,
});

/** A poll: what one delivery adds to a send (the difference of the two runs, per subscriber). */
function pollOf(withDelivery: PerOp, alone: PerOp, subscribers: number): PerOp {
  const d = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined ? undefined : (x - y) / subscribers);
  return { node: d(withDelivery.node, alone.node)!, redis: d(withDelivery.redis, alone.redis), pg: d(withDelivery.pg, alone.pg), gen: d(withDelivery.gen, alone.gen)!, rate: withDelivery.rate * subscribers };
}

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  ');
  return `${fmt(head)}\n${fmt(w.map((n) => '-'.repeat(n)))}\n${rows.map(fmt).join('\n')}\n`;
}

/** Server CPU per op of each window, in order: setups taken in turn, so window i of (a) and of (b) ran minutes apart at most. */
function windowRatios(windows: Run[], setup: string, label: string, baseLabel: string): string {
  const per = (s: string, l: string) => windows.filter((w) => w.setup === s && w.label === l).map((w) => w.nodeMs.reduce((a, b) => a + b, 0) / w.ops);
  const a = per('a', baseLabel);
  const x = per(setup, label);
  const r = x.map((v, i) => v / a[i]!).filter((v) => Number.isFinite(v)).sort((p, q) => p - q);
  if (r.length < 2) return '-';
  return `${r[Math.floor(r.length / 2)]!.toFixed(2)} [${r[0]!.toFixed(2)}–${r.at(-1)!.toFixed(2)}]`;
}

export function printCostTable(runs: Run[], windows: Run[], subscribers: number, seconds: number, senders: number, rounds: number): void {
  const ms = (x: number | undefined, digits = 3) => (x === undefined ? '-' : x.toFixed(digits));
  const ratio = (x: number | undefined, base: number | undefined) => (x === undefined || !base ? '-' : `${(x / base).toFixed(2)}×`);
  const get = (setup: string, label: string): PerOp | undefined => {
    const r = runs.find((x) => x.setup === setup && x.label === label);
    return r && perOp(r);
  };
  const poll = (setup: string, label: string): PerOp | undefined => {
    const w = get(setup, label);
    const a = get(setup, 'send alone');
    return w && a ? pollOf(w, a, subscribers) : undefined;
  };
  const ops: Array<[string, (s: string) => PerOp | undefined, string]> = [
    ['idle, per second (timers, bus read)', (s) => get(s, 'idle'), 'idle'],
    ['send alone (100-subscriber stream, no queue)', (s) => get(s, 'send alone'), 'send alone'],
    [`send + delivery (${subscribers} parked polls answered)`, (s) => get(s, 'send + delivery'), 'send + delivery'],
    ['  (c) split: sends and polls alternate nodes', (s) => (s === 'c' ? get(s, 'send + delivery, split') : undefined), 'send + delivery'],
    ['poll (one delivery: answer + re-park)', (s) => poll(s, 'send + delivery'), 'poll'],
    ['  (c) split', (s) => (s === 'c' ? poll(s, 'send + delivery, split') : undefined), 'poll'],
    ['register (zulip-terminal fetch types)', (s) => get(s, 'register'), 'register'],
  ];
  const base = (label: string): PerOp | undefined => ops.find(([, , l]) => l === label)![1]('a');
  process.stdout.write(`\nServer CPU per operation, ms (all server processes summed; ${seconds} s measured per operation and setup in ${rounds} windows, setups in turn; ${senders} sender${senders > 1 ? 's' : ''})\n`);
  const labelOf = (name: string, l: string) => (name.includes('(c) split') ? `${l}, split` : l);
  process.stdout.write(table(['operation', '(a) 1 process', '(b) 1 node', '(c) 2 nodes', '(b)/(a)', '(c)/(a)', '(b)/(a) by window: median [range]', '(c)/(a) by window'],
    ops.map(([name, f, l]) => [name, ms(f('a')?.node), ms(f('b')?.node), ms(f('c')?.node), ratio(f('b')?.node, base(l)?.node), ratio(f('c')?.node, base(l)?.node),
      ...['b', 'c'].map((s) => (l === 'poll' || l === 'idle' ? '' : windowRatios(windows, s, labelOf(name, l), l)))])));
  process.stdout.write(`\nOther processes' CPU per operation, ms; throughput (ops/s; polls/s for poll)\n`);
  const setups = ['a', 'b', 'c'];
  process.stdout.write(table(['operation', ...setups.map((s) => `redis (${s})`), ...setups.map((s) => `postgres (${s})`), ...setups.map((s) => `load gen (${s})`), ...setups.map((s) => `ops/s (${s})`), 'events/poll'],
    ops.map(([name, f]) => [name, ...setups.map((s) => ms(f(s)?.redis)), ...setups.map((s) => ms(f(s)?.pg)), ...setups.map((s) => ms(f(s)?.gen)),
      ...setups.map((s) => ms(f(s)?.rate, 0)), setups.map((s) => f(s)?.epa).filter((x) => x !== undefined).map((x) => x!.toFixed(2)).join(' / ') || '-'])));
}
