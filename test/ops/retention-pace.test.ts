import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchSizer, TARGET_HOLD_MS } from '../../src/actions/retention-pace.js';

const powerOfTwoOrMax = (n: number, max: number) => n === max || (Number.isInteger(Math.log2(n)) && n <= max);

test('batch sizes follow the time batches held the writer, in powers of two up to the maximum', () => {
  const sizer = new BatchSizer(1000, false);
  const seen = new Set<number>();
  // A fast writer (0.001 ms a message): sizes grow to the maximum.
  for (let i = 0; i < 30; i++) {
    const n = sizer.next;
    seen.add(n);
    assert.ok(powerOfTwoOrMax(n, 1000), `size ${n}`);
    sizer.record(n, n * 0.001);
  }
  assert.equal(sizer.next, 1000);
  // A slow one (1 ms a message): back down to about TARGET_HOLD_MS worth.
  for (let i = 0; i < 30; i++) sizer.record(sizer.next, sizer.next * 1);
  assert.ok(sizer.next <= 2 * TARGET_HOLD_MS && sizer.next >= 1, `size ${sizer.next}`);
  assert.ok(seen.size <= 11, 'a handful of sizes, not hundreds');
});

test('a fixed size stays as given', () => {
  const sizer = new BatchSizer(37, true);
  sizer.record(37, 500);
  assert.equal(sizer.next, 37);
});
