/**
 * `npm test`: the whole suite on SQLite, again on SQLite at feature level `latest`
 * (PARLEY_TEST_LEVELS=122 skips that), then on a throwaway PostgreSQL cluster when the
 * machine has PostgreSQL (and a subset as two cluster nodes with Redis). Prints one closing
 * line for all. The later suites leave out files that cannot differ there
 * (helpers/suite-selection.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COUNTS_DIR_ENV, compareCounts, readCounts } from './helpers/report-counts.mjs';
import { findPgBin, startCluster } from './helpers/pg.js';
import { CHROMIUM, NO_BROWSER } from './helpers/chromium.js';
import { findRedisServer, startRedis } from './helpers/redis.js';
import { levelBound, notBrowser } from './helpers/suite-selection.js';
import { measureSlowness, slownessEnv } from './helpers/machine.js';

function listTests(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== 'helpers' && e.name !== 'fixtures') out.push(...listTests(p));
    else if (e.isFile() && e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const filter = process.argv.slice(2);
const files = listTests('test').filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));
const engines = (process.env.PARLEY_TEST_ENGINES ?? 'sqlite,postgres').split(',');

/** What the two-node run covers: the issue's floor (events, messages, streams). */
const TWO_NODE_FOLDERS = ['test/events/', 'test/messages/', 'test/streams/'];

/**
 * The failures the spec reporter lists at the end of a suite, a few lines each (where, which
 * test, the error's first line). Repeated after the last suite: CI shows only the end of a
 * long run, and a failure in an earlier suite would otherwise be out of sight.
 */
function failureRecap(text: string): string[] {
  const at = text.lastIndexOf('✖ failing tests:');
  if (at < 0) return [];
  const lines = text.slice(at).split('\n').slice(1);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const where = /^test at (.+)$/.exec(lines[i]!.trim());
    if (!where) continue;
    const name = lines[i + 1]?.trim() ?? '';
    const why = lines.slice(i + 2).find((l) => l.trim() !== '')?.trim() ?? '';
    out.push(`${name}\n      at ${where[1]}\n      ${why.slice(0, 300)}`);
  }
  return out;
}

const recap: string[] = [];

async function runSuite(engine: string, env: Record<string, string>, only = files): Promise<{ pass: number; fail: number }> {
  process.stdout.write(`\n=== ${only.length} test files on ${engine} ===\n`);
  // `node --test` given no files would run every file it finds: a filter that leaves this
  // suite nothing (only browser tests, say) runs nothing here.
  if (only.length === 0) return { pass: 0, fail: 0 };
  const started = Date.now();
  // Measured again for each suite: the machine's speed drifts within a run.
  const slow = measureSlowness();
  process.stdout.write(`(this machine runs ${slow.toFixed(1)}× slower than the day the tests' time bounds were set; they are scaled by that)\n`);
  // Each file's process counts the results it sends, the runner counts those it receives
  // (test/helpers/report-*.ts): a result lost between them fails the run.
  const countsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-counts-'));
  const { code, text } = await new Promise<{ code: number | null; text: string }>((resolve) => {
    // A test that never settles fails after ten minutes, and a file whose tests have all
    // finished ends even if something it opened still holds it: the run never hangs. Its
    // results still all arrive: report-sender.mjs makes each process's stdout blocking.
    const child = spawn(process.execPath, [
      '--import', 'tsx', '--import', './test/helpers/report-sender.mjs',
      '--test', '--test-concurrency=2', '--test-timeout=600000', '--test-force-exit',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=./test/helpers/report-receiver.mjs', `--test-reporter-destination=${path.join(countsDir, 'receiver.out')}`,
      ...only,
    ], {
      // Request budgets off, for the servers tests start as children too; the rate-limit
      // tests turn them on in their own config. Every answer checked against its route's
      // declared schema (src/http/answer-check.ts), so a declaration cannot drift.
      env: { PARLEY_RATE_LIMITING: 'false', PARLEY_CHECK_ANSWERS: '1', ...slownessEnv(slow), ...process.env, ...env, [COUNTS_DIR_ENV]: countsDir }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      process.stdout.write(d);
      text += d.toString();
    });
    child.on('close', (c) => resolve({ code: c, text }));
  });
  const num = (label: string) => Number(new RegExp(`ℹ ${label} (\\d+)`).exec(text)?.[1] ?? 0);
  const pass = num('pass');
  let fail = num('fail') + num('cancelled') + (code !== 0 && num('fail') === 0 ? 1 : 0);
  const { received, sent } = readCounts(countsDir);
  fs.rmSync(countsDir, { recursive: true, force: true });
  const lost = compareCounts(received, sent);
  if (lost.length > 0) {
    process.stdout.write(`\n*** Test results missing on ${engine}: the counts above are not the whole run. ***\n${lost.map((l) => `  ${l}\n`).join('')}`);
    fail += lost.length;
  }
  for (const f of failureRecap(text)) recap.push(`[${engine}] ${f}`);
  for (const l of lost) recap.push(`[${engine}] results missing: ${l}`);
  if (fail > 0 && failureRecap(text).length === 0 && lost.length === 0) recap.push(`[${engine}] the run failed (exit ${code}) without a listed test`);
  process.stdout.write(`\n=== ${engine}: ${pass} passed, ${fail} failed in ${Math.round((Date.now() - started) / 1000)} s ===\n`);
  return { pass, fail };
}

/** The reported feature levels the SQLite suite runs at (PARLEY_FEATURE_LEVEL): the spec's, and `latest`. */
const levels = (process.env.PARLEY_TEST_LEVELS ?? '122,latest').split(',');

let pass = 0, fail = 0;
if (engines.includes('sqlite')) {
  const r = await runSuite('sqlite', { PARLEY_TEST_ENGINE: 'sqlite', PARLEY_FEATURE_LEVEL: '122' });
  pass += r.pass; fail += r.fail;
  if (levels.includes('latest')) {
    const l = await runSuite('sqlite, feature level latest', { PARLEY_TEST_ENGINE: 'sqlite', PARLEY_FEATURE_LEVEL: 'latest' }, levelBound(files));
    pass += l.pass; fail += l.fail;
  }
}
if (engines.includes('postgres')) {
  const bin = findPgBin();
  if (!bin) {
    process.stdout.write('\n*** PostgreSQL run SKIPPED: no PostgreSQL server binaries on this machine (apt-get install postgresql). ***\n');
  } else {
    const cluster = await startCluster(bin);
    try {
      const r = await runSuite('postgres', { PARLEY_TEST_ENGINE: 'postgres', PARLEY_TEST_PG_URL: cluster.url, PARLEY_FEATURE_LEVEL: '122' }, notBrowser(files));
      pass += r.pass; fail += r.fail;
      // Again with every test's server as two cluster nodes (PostgreSQL + Redis).
      const twoNode = files.filter((f) => TWO_NODE_FOLDERS.some((d) => f.startsWith(d)));
      if (twoNode.length > 0 && process.env.PARLEY_TEST_TWO_NODES !== 'false') {
        if (!findRedisServer()) {
          process.stdout.write('\n*** Two-node run SKIPPED: no redis-server on this machine (apt-get install redis-server). ***\n');
        } else {
          const redis = await startRedis();
          try {
            const t = await runSuite('postgres, two cluster nodes', {
              PARLEY_TEST_ENGINE: 'postgres', PARLEY_TEST_PG_URL: cluster.url, PARLEY_TEST_NODES: '2', PARLEY_TEST_REDIS_URL: redis.url, PARLEY_FEATURE_LEVEL: '122',
            }, twoNode);
            pass += t.pass; fail += t.fail;
          } finally {
            await redis.stop();
          }
        }
      }
    } finally {
      cluster.stop();
    }
  }
}
if (!CHROMIUM && files.some((f) => path.basename(f).startsWith('browser'))) {
  process.stdout.write(`\n*** Browser tests SKIPPED: ${NO_BROWSER}. ***\n`);
}
if (recap.length > 0) process.stdout.write(`\n*** Failing (${recap.length}) ***\n${recap.map((r) => `  ${r}\n`).join('')}`);
process.stdout.write(`\ntests: ${pass} passed, ${fail} failed\n`);
process.exit(fail > 0 || pass === 0 ? 1 : 0);
