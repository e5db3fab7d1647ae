/**
 * A periodic job's rounds, one at a time on a node: a call during a round (the timer's, or a
 * test's with a later clock) waits for it to end and then runs its own, so that no two
 * rounds of the same job interleave their reads and writes.
 */
export interface SerialRounds<T> {
  run(now: number): Promise<T>;
  /** Whether a round is under way (a timer skips its tick then rather than queue another). */
  busy(): boolean;
  /** Resolves when the current round, if any, has ended (for shutdown). */
  settled(): Promise<void>;
}

export function serialRounds<T>(round: (now: number) => Promise<T>): SerialRounds<T> {
  let running: Promise<T> | undefined;
  return {
    async run(now) {
      while (running) await running.catch(() => undefined);
      running = round(now);
      try {
        return await running;
      } finally {
        running = undefined;
      }
    },
    busy: () => running !== undefined,
    settled: async () => { await running?.catch(() => undefined); },
  };
}
