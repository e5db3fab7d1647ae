/**
 * Extra flags for a benchmark's server process: `BENCH_PROFILE=<dir>` writes a V8 CPU
 * profile there; `BENCH_NODE_FLAGS` passes node flags (for trying GC settings, say).
 */
export const profileArgs = (): string[] => [
  ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean) : []),
  ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
];
