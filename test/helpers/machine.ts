/**
 * How much slower this machine runs today than the day the suite's time bounds were set.
 * The CI machine's speed drifts from day to day and with what else runs on it (this loop
 * of 2·10^7 additions: 25 ms when the bounds were set, 30-70 ms of CPU on 2026-11-29 with tests
 * beside it), and CPU time inflates with it, so a bound on CPU or wall time is multiplied by
 * this factor. A bound scaled so
 * still catches what it is there for: work that grows (a backtracking regex, a render per
 * row) grows past any constant factor.
 */

const ENV = 'PARLEY_TEST_SLOWNESS';
const LOOP = 20_000_000;
/** The loop's CPU time on the day the bounds were set. */
const NOMINAL_MS = 25;

/** The loop's CPU time, the best of three (the first includes compiling it). */
export function measureSlowness(): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const from = process.cpuUsage();
    let sum = 0;
    for (let i = 0; i < LOOP; i++) sum += i;
    const { user, system } = process.cpuUsage(from);
    if (sum < 0) throw new Error('unreachable: keeps the loop from being optimised away');
    best = Math.min(best, (user + system) / 1000);
  }
  return Math.max(1, best / NOMINAL_MS);
}

let known: number | undefined;

/** The factor, at least 1: test/run.ts measures it before each suite and passes it on. */
export function slowness(): number {
  if (known === undefined) {
    const given = Number(process.env[ENV]);
    known = Number.isFinite(given) && given >= 1 ? given : measureSlowness();
  }
  return known;
}

/** The environment that hands a measured factor to a suite's test processes. */
export function slownessEnv(factor: number): Record<string, string> {
  return { [ENV]: factor.toFixed(2) };
}

/**
 * A time bound in milliseconds for today's machine. `cap` keeps it below what the bound
 * tells apart (a timeout or a timer the operation must not have waited for).
 */
export function scaledMs(ms: number, cap = Infinity): number {
  return Math.min(cap, Math.round(ms * slowness()));
}
