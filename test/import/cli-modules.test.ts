/**
 * What the CLI loads before any command runs. `parley import` keeps its memory bound partly by
 * what it never loads (src/open-context.ts, docs/performance.md): the HTTP server, metrics,
 * Redis's client and highlight.js's grammars. A static import of any of them from a command's
 * module would bring back tens of megabytes to every command, and nothing else would notice.
 * Packages are CommonJS, so what the process loaded is in require.cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ENGINE } from '../helpers/app.js';

const PROBE = `
import { createRequire } from 'node:module';
await import(${JSON.stringify(new URL('../../src/cli/index.ts', import.meta.url).pathname)});
const cache = createRequire(import.meta.url).cache;
const packages = new Set(Object.keys(cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
process.stdout.write(JSON.stringify([...packages]));
`;

test('the CLI loads none of the server-only packages before a command runs', { skip: ENGINE !== 'sqlite', timeout: 120_000 }, () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const loaded = new Set(JSON.parse(r.stdout) as string[]);
  // The probe sees packages at all: the store's driver is loaded by every command.
  assert.ok(loaded.has('better-sqlite3'), [...loaded].join(' '));
  for (const serverOnly of ['fastify', 'ioredis', 'prom-client', 'highlight.js', '@fastify/static', 'ws']) {
    assert.ok(!loaded.has(serverOnly), `${serverOnly} is loaded by the CLI before any command runs`);
  }
});
