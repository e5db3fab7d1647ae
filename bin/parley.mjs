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
await import(pathToFileURL(path.join(DIST, 'main.js')).href);
