#!/usr/bin/env node
/**
 * Compiles src/ into dist/ (tsconfig.build.json: dist/ mirrors src/, so dist/main.js is
 * src/main.ts) and copies any non-TypeScript file under src/ beside its compiled siblings;
 * then builds the browser app, web/ into web/dist/, with Vite (web-build.mjs).
 *
 *   node scripts/build.mjs             always rebuilds (`npm run build`)
 *   node scripts/build.mjs --if-stale  rebuilds only when dist/ is missing or older than
 *                                      a file or folder under src/ or a tsconfig
 *                                      (`prepare`, which npm install and npm ci run;
 *                                      `prestart`; bin/parley.mjs)
 *
 * Plain JavaScript so that it runs before anything is compiled and without tsx. A build
 * compiles into a scratch folder and swaps it in whole, so dist/ never holds a file whose
 * source is gone and a failed build leaves the previous one in place.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { olderThanInputs } from './staleness.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const DIST = path.join(root, 'dist');
const SRC = path.join(root, 'src');
/** Its modification time is when the build that wrote it started. */
const STAMP = '.built';
const INPUTS = [SRC, path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.build.json')];


export function isStale() {
  if (!fs.existsSync(SRC)) return false; // an installed copy without sources runs what it has
  return olderThanInputs(path.join(DIST, STAMP), INPUTS);
}

function copyAssets(from, to) {
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) copyAssets(src, dst);
    else if (!e.name.endsWith('.ts')) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(src, dst);
    }
  }
}

/** Returns whether the build succeeded; tsc's diagnostics go to stderr. */
export function build() {
  const started = new Date();
  const tmp = `${DIST}.tmp-${process.pid}`;
  const old = `${DIST}.old-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', tmp], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    process.stderr.write(`parley: the build failed (tsc exited with ${r.status ?? r.signal}); dist/ is unchanged\n`);
    return false;
  }
  copyAssets(SRC, tmp);
  fs.writeFileSync(path.join(tmp, STAMP), `${started.toISOString()}\n`);
  fs.utimesSync(path.join(tmp, STAMP), started, started);
  if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
  fs.renameSync(tmp, DIST);
  fs.rmSync(old, { recursive: true, force: true });
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const ifStale = process.argv.includes('--if-stale');
  let ok = true;
  if (!ifStale || isStale()) {
    if (ifStale) process.stderr.write('parley: compiling src/ into dist/ (missing or older than the sources)...\n');
    ok = build();
  }
  const web = await import('./web-build.mjs');
  if (ok && (!ifStale || web.isStale())) {
    if (ifStale) process.stderr.write('parley: building the web app, web/ into web/dist/ (missing or older than its sources)...\n');
    ok = await web.build();
  }
  process.exit(ok ? 0 : 1);
}
