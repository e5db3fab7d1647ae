/**
 * A CPU profile of one stretch of a server child's life (where --cpu-prof would take all
 * of it, seeding included): the first SIGUSR2 starts V8's profiler, the next writes the
 * profile to `dir` and says where on stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

export function profileOnSignal(dir: string, name: string): void {
  const session = new Session();
  session.connect();
  let running = false;
  let n = 0;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!running) {
        running = true;
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('Profiler.start');
        return;
      }
      running = false;
      const { profile } = await session.post('Profiler.stop');
      const file = path.join(dir, `${name}-${process.pid}-${n++}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      process.stderr.write(`  [profile] ${file}\n`);
    })();
  });
}

/** In the parent: what to signal around the run whose label is BENCH_PROFILE_RUN. */
export function profiledRun(label: string): boolean {
  return !!process.env.BENCH_PROFILE_RUN && label === process.env.BENCH_PROFILE_RUN;
}
