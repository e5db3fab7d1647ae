#!/usr/bin/env node
// Runs the compiled CLI (dist/main.js) in this process. dist/ is built by `npm install` /
// `npm ci` (the `prepare` script); when a file under src/ has changed since, it is rebuilt
// first, so `npx parley` never runs stale code.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, build, isStale } from '../scripts/build.mjs';

if (isStale()) {
  process.stderr.write('parley: compiling src/ into dist/ (missing or older than the sources)...\n');
  if (!build()) process.exit(1);
}
// `parley serve` serves the browser app too: rebuild it when its sources changed.
if (process.argv[2] === 'serve') {
  const web = await import('../scripts/web-build.mjs');
  if (web.isStale()) {
    process.stderr.write('parley: building the web app, web/ into web/dist/ (missing or older than its sources)...\n');
    if (!(await web.build())) process.exit(1);
  }
}
// An import allocates from two threads at once (the converter and SQLite's writer), and glibc
// gives each its own malloc arenas, whose freed pages it keeps: two arenas in all hold an
// import's peak about 30 MB lower, and a small young generation about 30 MB more
// (docs/performance.md, import). glibc and V8 read these only when a process starts, so the
// command starts itself again with them.
if (process.argv[2] === 'import' && process.env.MALLOC_ARENA_MAX === undefined) {
  const { spawn } = await import('node:child_process');
  const { IMPORT_MALLOC_ARENAS, importNodeOptions } = await import(pathToFileURL(path.join(DIST, 'import', 'memory.js')).href);
  const child = spawn(process.execPath, [...importNodeOptions(process.execArgv), ...process.argv.slice(1)], {
    stdio: 'inherit', env: { ...process.env, MALLOC_ARENA_MAX: String(IMPORT_MALLOC_ARENAS) },
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    // Ended by a signal: end the same way, so that the caller sees it (not through the forwarder).
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  await import(pathToFileURL(path.join(DIST, 'main.js')).href);
}
