import fs from 'node:fs';

/**
 * CPU time of a process, all threads and each thread, read from /proc (Linux): steadier
 * than throughput on a shared 2-core machine, where the load generator competes with the
 * server. Elsewhere it reports nothing.
 */
export interface CpuSample { total: number; threads: Map<string, number> }

const TICK_MS = 10; // USER_HZ is 100 on Linux

function ticks(stat: string): number {
  // Fields after the command name, which is in parentheses and may contain spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

export function sampleCpu(pid: number): CpuSample | undefined {
  try {
    const threads = new Map<string, number>();
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const comm = tid === String(pid) ? "main" : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      threads.set(`${comm}:${tid}`, ticks(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) * TICK_MS);
    }
    return { total: ticks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) * TICK_MS, threads };
  } catch {
    return undefined;
  }
}

/** CPU milliseconds spent between two samples: in all, and by the busiest threads. */
export function cpuBetween(a: CpuSample | undefined, b: CpuSample | undefined): { total: number; threads: Array<[string, number]> } | undefined {
  if (!a || !b) return undefined;
  const threads = [...b.threads].map(([k, v]) => [k, v - (a.threads.get(k) ?? 0)] as [string, number])
    .filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]);
  return { total: b.total - a.total, threads };
}
