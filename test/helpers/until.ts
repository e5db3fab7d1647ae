/**
 * Waiting in tests: poll a condition until it holds, never sleep a fixed time. A fixed
 * sleep is either too short on a loaded machine (a flaky test) or longer than needed
 * everywhere else (a slow suite); a poll returns as soon as the condition holds and fails
 * with a message naming what never happened.
 */

import { slowness } from './machine.js';

export interface UntilOptions {
  /** How long the condition may take to hold; the default is generous, for loaded CI machines. */
  timeoutMs?: number;
  /** The pause between two looks. */
  intervalMs?: number;
  /** What was awaited, for the timeout's error. */
  message?: string | (() => string);
}

/** On a slow day, up to six times this (helpers/machine.ts): a failing wait still ends within a minute. */
export const UNTIL_TIMEOUT_MS = 10_000;
const UNTIL_INTERVAL_MS = 10;

/** The truthy values of T: what `until` answers once its condition holds. */
type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Calls `condition` until it answers a truthy value, and returns that value. A look that
 * starts before the deadline counts, however long it takes; after the deadline, throws an
 * Error naming `message` (or the condition's source) and the last value seen. An error the
 * condition throws is not a "not yet": it fails the wait at once.
 */
export async function until<T>(condition: () => T | Promise<T>, opts: UntilOptions = {}): Promise<Truthy<T>> {
  const timeoutMs = opts.timeoutMs ?? UNTIL_TIMEOUT_MS * Math.min(6, slowness());
  const intervalMs = opts.intervalMs ?? UNTIL_INTERVAL_MS;
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (let looks = 1; ; looks++) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    if (Date.now() >= deadline) {
      const what = typeof opts.message === 'function' ? opts.message() : opts.message ?? `condition ${condition.toString()}`;
      let last: string;
      try {
        last = JSON.stringify(value) ?? String(value);
      } catch {
        last = String(value);
      }
      throw new Error(`until: timed out after ${Date.now() - started} ms (${looks} looks) waiting for ${what}; last value: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
