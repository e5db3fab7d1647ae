import fs from 'node:fs';

/**
 * CPU of the services a cluster benchmark leans on, read from /proc (Linux): Redis (one
 * process) and PostgreSQL (the postmaster and its backends, which come and go).
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux

function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU milliseconds a process has used so far (user + system), or undefined when it is gone. */
export function processCpuMs(pid: number): number | undefined {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : undefined;
}

/** The postmaster listening on `port` (its command line carries `-p <port>`). */
export function findPostmaster(port: number): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd: string[];
    try {
      cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!cmd[0]?.endsWith('/postgres')) continue;
    const p = cmd.indexOf('-p');
    if (p >= 0 && cmd[p + 1] === String(port)) return Number(entry);
    // pg_ctl -o passes its options as one argument.
    if (cmd.some((a) => new RegExp(`(^|\\s)-p ${port}(\\s|$)`).test(a))) return Number(entry);
  }
  return undefined;
}

/** CPU milliseconds so far of the postmaster and each of its children, by pid. */
export function postgresCpu(postmaster: number): Map<number, number> {
  const out = new Map<number, number>();
  const own = processCpuMs(postmaster);
  if (own !== undefined) out.set(postmaster, own);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f && Number(f[1]) === postmaster) out.set(Number(entry), (Number(f[11]) + Number(f[12])) * TICK_MS);
  }
  return out;
}

/** CPU used between two postgresCpu samples; a backend that started meanwhile counts whole. */
export function postgresCpuBetween(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of b) sum += ms - (a.get(pid) ?? 0);
  return sum;
}
