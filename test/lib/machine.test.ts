import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureSlowness, scaledMs, slowness } from '../helpers/machine.js';

test('time bounds grow with the machine\'s slowness and stay under their cap', () => {
  const factor = slowness();
  assert.ok(factor >= 1, `a factor of at least 1: ${factor}`);
  assert.ok(measureSlowness() >= 1);
  assert.equal(scaledMs(1000), Math.round(1000 * factor));
  assert.equal(scaledMs(1000, 999), 999, 'never past the cap');
});
