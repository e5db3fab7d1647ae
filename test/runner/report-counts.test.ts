import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COUNTS_DIR_ENV, compareCounts, countEvent, decodeFrames, encodeFrame, readCounts, type Counts } from '../helpers/report-counts.mjs';

const F = path.resolve('test/x.test.ts');
const ev = (type: string, nesting: number, name = 't', file: string | undefined = F) => ({ type, data: { nesting, name, file } });

test('frames of the v8-serializer reporter decode, one or several to a chunk; other output is skipped', () => {
  const a = ev('test:pass', 0, 'a'), b = ev('test:fail', 1, 'b');
  assert.deepEqual(decodeFrames(encodeFrame(a)), [a]);
  assert.deepEqual(decodeFrames(Buffer.concat([encodeFrame(a), encodeFrame(b)])), [a, b]);
  assert.deepEqual(decodeFrames(Buffer.from('hello from a test\n')), []);
  assert.deepEqual(decodeFrames(encodeFrame(a).subarray(0, 9)), [], 'a cut frame is not an event');
});

test('counts are of top-level tests per file, and the runner’s own result for a file is kept apart', () => {
  const c: Counts = {};
  for (const e of [ev('test:enqueue', 0), ev('test:enqueue', 0), ev('test:pass', 0), ev('test:fail', 0), ev('test:pass', 1),
    ev('test:enqueue', 1), ev('test:diagnostic', 0), ev('test:pass', 0, 'u', 'file:///tmp/u.test.ts'), ev('test:fail', 0, F)]) {
    countEvent(c, e, '/fallback');
  }
  assert.deepEqual(c, { [F]: { started: 2, results: 2, fileResult: 'fail' }, '/tmp/u.test.ts': { started: 0, results: 1 } });
});

test('a mismatch names the file and both counts; matching counts and a file that failed to load say nothing', () => {
  const cwd = path.resolve('.');
  assert.deepEqual(compareCounts({ [F]: { started: 76, results: 76 } }, { [F]: { started: 76, results: 76 } }, cwd), []);
  assert.deepEqual(compareCounts({ [F]: { started: 76, results: 30 } }, { [F]: { started: 76, results: 76 } }, cwd),
    ['test/x.test.ts: 30 of the 76 results its process sent reached the runner (46 lost)']);
  assert.deepEqual(compareCounts({ [F]: { started: 4, results: 2 } }, { [F]: { started: 4, results: 2 } }, cwd),
    ['test/x.test.ts: 4 tests started, but its process sent only 2 results (it ended midway)']);
  assert.deepEqual(compareCounts({ [F]: { started: 1, results: 0, fileResult: 'pass' } }, {}, cwd),
    ['test/x.test.ts: its process sent no test result at all (it ended before its first: a process.exit() in a test?)']);
  assert.deepEqual(compareCounts({ [F]: { started: 1, results: 0, fileResult: 'fail' } }, {}, cwd), []);
  assert.deepEqual(compareCounts(undefined, {}, cwd), ['the runner wrote no count of the results it received']);
});

test('end to end: a file whose process ends midway passes in node --test, and the counts catch it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-counts-test-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, [COUNTS_DIR_ENV]: dir };
    delete env.NODE_TEST_CONTEXT; // this file runs under node --test; the one started here is a runner
    const r = spawnSync(process.execPath, [
      '--import', 'tsx', '--import', './test/helpers/report-sender.mjs', '--test', '--test-force-exit',
      '--test-reporter=./test/helpers/report-receiver.mjs', `--test-reporter-destination=${path.join(dir, 'receiver.out')}`,
      'test/fixtures/runner/exits-midway.test.ts',
    ], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, 'node --test itself sees nothing wrong');
    const { received, sent } = readCounts(dir);
    assert.deepEqual(compareCounts(received, sent), ['test/fixtures/runner/exits-midway.test.ts: 4 tests started, but its process sent only 2 results (it ended midway)']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
