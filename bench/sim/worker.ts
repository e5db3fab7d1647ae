/**
 * One load-generator process: runs the simulated users the parent hands it, and every
 * second sends the parent what it measured (per-operation histograms, deliveries, its
 * own CPU and event-loop delay). Actions share one undici Pool; each user's long poll has
 * its own raw keep-alive socket (bench/lib/raw-poller.ts), the cheapest way to hold
 * thousands of parked requests.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Pool } from 'undici';
import { clientProfile } from './client.js';
import { emptyHist, record, type Hist } from './histogram.js';
import type { SimUser } from './shape.js';
import { SimulatedUser, type Recorder } from './user.js';

export interface WorkerStart { cmd: 'start'; base: string; client: 'terminal' | 'web'; thinkMean: number; thinkMin: number; reactionWeight: number }
export type ToWorker = WorkerStart | { cmd: 'add'; users: SimUser[] } | { cmd: 'mark' } | { cmd: 'stop' };
export interface EldFigures { p50: number; p99: number; max: number }
export interface WorkerTick { kind: 'tick'; ops: Record<string, { hist: Hist; errors: number }>; delivery: Hist; eld: EldFigures; cpuMs: number; users: number; ready: number }
export interface WorkerMark { kind: 'mark'; eld: EldFigures; cpuMs: number }

const send = (m: WorkerTick | WorkerMark) => process.send!(m);
// The histogram holds the time between the monitor's ticks, so the delay is that less the resolution.
const RESOLUTION_MS = 10;
const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
const figures = (h: IntervalHistogram): EldFigures => ({ p50: late(h.percentile(50)), p99: late(h.percentile(99)), max: late(h.max) });

let users: SimulatedUser[] = [];
/** Users whose start (register, presence, first view) has finished, well or not. */
let ready = 0;
let ops: WorkerTick['ops'] = {};
let delivery = emptyHist();
const rec: Recorder = {
  op(name, ms, ok) {
    const o = (ops[name] ??= { hist: emptyHist(), errors: 0 });
    record(o.hist, ms);
    if (!ok) o.errors++;
  },
  delivery(ms) { record(delivery, ms); },
};
// One monitor for the live display (reset every second), one for the parent's windows.
const eldSecond = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const eldWindow = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
eldSecond.enable();
eldWindow.enable();
let cpuSecond = process.cpuUsage();
let cpuWindow = process.cpuUsage();
const cpuSince = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

let env: ConstructorParameters<typeof SimulatedUser>[0] | undefined;
process.on('message', (m: ToWorker) => {
  if (m.cmd === 'start') {
    const url = new URL(m.base);
    // Enough connections that actions do not queue behind each other in the generator.
    const pool = new Pool(m.base, { connections: 128, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 120_000 });
    env = { pool, host: url.hostname, port: Number(url.port), hostHeader: url.host, client: clientProfile(m.client), thinkMean: m.thinkMean, thinkMin: m.thinkMin, reactionWeight: m.reactionWeight, rec };
    setInterval(() => {
      send({ kind: 'tick', ops, delivery, eld: figures(eldSecond), cpuMs: cpuSince(cpuSecond), users: users.length, ready });
      ops = {};
      delivery = emptyHist();
      eldSecond.reset();
      cpuSecond = process.cpuUsage();
    }, 1000);
  } else if (m.cmd === 'add') {
    for (const u of m.users) {
      const sim = new SimulatedUser(env!, u);
      users.push(sim);
      // A failed register is counted; that user stays idle.
      void sim.start().catch(() => undefined).finally(() => ready++);
    }
  } else if (m.cmd === 'mark') {
    send({ kind: 'mark', eld: figures(eldWindow), cpuMs: cpuSince(cpuWindow) });
    eldWindow.reset();
    cpuWindow = process.cpuUsage();
  } else if (m.cmd === 'stop') {
    for (const u of users) u.stop();
    users = [];
    setTimeout(() => process.exit(0), 200);
  }
});
