/**
 * Builds the browser app (web/) into web/dist/ with Vite, after type-checking it (Vite only
 * strips types). Like the server's build it writes into a scratch folder and swaps it in
 * whole, so a failed build leaves the previous app served. Beside each compressible asset it
 * writes brotli and gzip copies (precompress), which the server sends by Accept-Encoding. Run by scripts/build.mjs, so by
 * `npm install` (prepare), `npm start` (prestart) and `npm run build`.
 *
 * Vite is a devDependency: an install without dev dependencies (npm ci --omit=dev) keeps
 * whatever web/dist/ it shipped with, and the server says plainly when there is none.
 */
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { olderThanInputs } from './staleness.mjs';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const WEB = path.join(root, 'web');
export const WEB_DIST = path.join(WEB, 'dist');
const STAMP = '.built';
/**
 * The app's sources and what it shares with the server: the event reducer and the event
 * types, the narrow matcher, the wire objects' declarations, the flag bits.
 */
const INPUTS = [
  path.join(WEB, 'src'), path.join(WEB, 'index.html'), path.join(WEB, 'vite.config.ts'), path.join(WEB, 'tsconfig.json'),
  path.join(root, 'src', 'events'), path.join(root, 'src', 'narrow'), path.join(root, 'src', 'schemas'),
  path.join(root, 'src', 'lib', 'message-flags.ts'),
  // The settings panel's choices: the languages and the emoji sets and sounds the server takes.
  path.join(root, 'src', 'lib', 'languages.ts'), path.join(root, 'src', 'lib', 'user-settings.ts'),
  // The emoji catalog chunk is made from the server's emoji data.
  path.join(root, 'src', 'emoji'),
  // This script: what it writes beside Vite's output (the compressed copies) is part of the build.
  fileURLToPath(import.meta.url),
];

/** What gains from compression; images and fonts in these formats are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|json|svg|txt|html)$/;
/** Below this a compressed copy saves less than a packet. */
const MIN_SIZE = 1024;

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside each
 * compressible file under dir, at build time so that no request pays for compressing;
 * the server (src/http/static-app.ts, @fastify/static's preCompressed) picks one by the
 * request's Accept-Encoding. Files under 1 KB, and copies no smaller than their file, are
 * left out: the plain file is served then. Returns what it wrote, for the build's log and tests.
 */
export function precompress(dir) {
  const written = [];
  if (!fs.existsSync(dir)) return written;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) {
      written.push(...precompress(file));
      continue;
    }
    if (!e.isFile() || !COMPRESSIBLE.test(e.name)) continue;
    const plain = fs.readFileSync(file);
    if (plain.length < MIN_SIZE) continue;
    const variants = {
      br: zlib.brotliCompressSync(plain, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
        },
      }),
      gz: zlib.gzipSync(plain, { level: 9 }),
    };
    for (const [ext, data] of Object.entries(variants)) {
      if (data.length >= plain.length) continue;
      fs.writeFileSync(`${file}.${ext}`, data);
      written.push({ file: `${file}.${ext}`, plain: plain.length, compressed: data.length });
    }
  }
  return written;
}


export function isStale() {
  if (!fs.existsSync(path.join(WEB, 'src'))) return false;
  return olderThanInputs(path.join(WEB_DIST, STAMP), INPUTS);
}

export async function build() {
  const require = createRequire(import.meta.url);
  let vite;
  try {
    vite = await import(require.resolve('vite'));
  } catch {
    process.stderr.write('parley: vite is not installed (a production install?): web/dist/ is left as it is\n');
    return true;
  }
  const started = new Date();
  const tsc = require.resolve('typescript/bin/tsc');
  const check = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(WEB, 'tsconfig.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (check.status !== 0) {
    process.stderr.write('parley: the web app does not type-check; web/dist/ is unchanged\n');
    return false;
  }
  const tmp = `${WEB_DIST}.tmp-${process.pid}`;
  const old = `${WEB_DIST}.old-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    await vite.build({ configFile: path.join(WEB, 'vite.config.ts'), root: WEB, logLevel: 'warn', build: { outDir: tmp, emptyOutDir: true } });
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    process.stderr.write(`parley: the web app's build failed (${e?.message ?? e}); web/dist/ is unchanged\n`);
    return false;
  }
  try {
    precompress(path.join(tmp, 'assets'));
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    process.stderr.write(`parley: compressing the web app's files failed (${e?.message ?? e}); web/dist/ is unchanged\n`);
    return false;
  }
  fs.writeFileSync(path.join(tmp, STAMP), `${started.toISOString()}\n`);
  fs.utimesSync(path.join(tmp, STAMP), started, started);
  if (fs.existsSync(WEB_DIST)) fs.renameSync(WEB_DIST, old);
  fs.renameSync(tmp, WEB_DIST);
  fs.rmSync(old, { recursive: true, force: true });
  return true;
}
