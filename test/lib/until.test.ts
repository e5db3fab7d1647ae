import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/until.js';

test('until answers the first truthy value of its condition, looking again until then', async () => {
  let looks = 0;
  const value = await until(() => (++looks >= 3 ? { looks } : undefined), { intervalMs: 1 });
  assert.deepEqual(value, { looks: 3 });
  assert.equal(await until(async () => 'at once'), 'at once');
});

test('until fails after its timeout with the message and the last value seen', async () => {
  await assert.rejects(until(() => 0, { timeoutMs: 30, intervalMs: 5, message: 'the answer' }),
    /^Error: until: timed out after \d+ ms \(\d+ looks\) waiting for the answer; last value: 0$/);
  await assert.rejects(until(() => null, { timeoutMs: 0, message: () => 'a computed message' }), /waiting for a computed message; last value: null/);
});

test('an error thrown by the condition fails the wait at once', async () => {
  let looks = 0;
  await assert.rejects(until(() => { looks += 1; throw new Error('broken'); }), /^Error: broken$/);
  assert.equal(looks, 1);
});
