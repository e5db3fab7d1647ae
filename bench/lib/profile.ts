/** `BENCH_PROFILE=<dir>` writes a V8 CPU profile of the benchmark's server process there. */
export const profileArgs = (): string[] =>
  process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
