import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startModuleWorker } from '../../src/lib/module-worker.js';

test('a worker module written in TypeScript starts under tsx from the URL of its compiled name', async () => {
  const worker = startModuleWorker(new URL('../fixtures/echo-worker.js', import.meta.url), { workerData: { n: 21 } });
  const [message] = await once(worker, 'message');
  assert.deepEqual(message, { doubled: 42, label: 'from a .ts import' });
  await once(worker, 'exit');
});
