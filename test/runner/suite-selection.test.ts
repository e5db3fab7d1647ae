/**
 * The later suites leave some files out (test/helpers/suite-selection.ts). That is only sound
 * while a left-out file cannot behave differently there, so this checks the reasons still hold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isBrowserTest, LEVEL_FREE, levelBound, notBrowser } from '../helpers/suite-selection.js';

function listTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listTests(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}
const all = listTests('test');

test('no file left out at `latest` reads the feature level the suite runs at', () => {
  const self = 'test/runner/suite-selection.test.ts';
  const leftOut = all.filter((f) => f !== self && LEVEL_FREE.some((p) => f.startsWith(p)));
  assert.ok(leftOut.length > 20, 'the list names real files');
  const readers = leftOut.filter((f) => /FEATURE_LEVEL|featureLevel|feature_level/.test(fs.readFileSync(f, 'utf8')));
  assert.deepEqual(readers, [], 'a file that depends on the level must run at `latest` too: take it off LEVEL_FREE');
  for (const p of LEVEL_FREE) assert.ok(fs.existsSync(p), `${p} exists (a renamed file would silently run everywhere)`);
});

test('browser tests are exactly the files that drive Chromium', () => {
  const drivers = all.filter((f) => /helpers\/browser\.js'/.test(fs.readFileSync(f, 'utf8')) && /\blaunch\(/.test(fs.readFileSync(f, 'utf8')));
  assert.deepEqual(all.filter(isBrowserTest).sort(), drivers.sort());
});

test('every suite keeps the API tests: only browser and level-free files are left out', () => {
  const api = 'test/messages/send.test.ts';
  assert.ok(all.includes(api));
  assert.ok(notBrowser(all).includes(api) && levelBound(all).includes(api));
  assert.ok(!notBrowser(all).some(isBrowserTest));
  assert.ok(levelBound(all).length < notBrowser(all).length && notBrowser(all).length < all.length);
});
