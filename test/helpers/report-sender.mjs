/**
 * Loaded by `--import` in every process `node --test` starts (test/run.ts), runner included.
 * JavaScript, so that it loads anywhere execArgv reaches (worker threads too) without the
 * TypeScript loader; it does nothing outside a process's main thread.
 *
 * 1. Makes the process's stdout blocking when it is a pipe. A test file's process sends its
 *    results to the runner over that pipe, and `--test-force-exit` ends the process as soon
 *    as the last result is handed to stdout; a pipe's writes are asynchronous in Node, so
 *    whatever the pipe had not yet taken was lost, silently (Node 24 dropped up to 61 of the
 *    76 results of test/markdown/fixtures.test.ts; nodejs/node#64833). Blocking writes are
 *    done when `write()` returns.
 * 2. In a test file's process, counts the results it sends, per file, and writes the counts
 *    synchronously when the process exits, for test/run.ts to compare with what arrived.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { COUNTS_DIR_ENV, countEvent, decodeFrames, sentFile } from './report-counts.mjs';

if (isMainThread) {
  if (!process.stdout.isTTY) process.stdout._handle?.setBlocking?.(true);

  const dir = process.env[COUNTS_DIR_ENV];
  // A test file's process (the runner sets NODE_TEST_CONTEXT for it), not the runner itself.
  if (dir && process.env.NODE_TEST_CONTEXT === 'child-v8') {
    const counts = {};
    let any = false;
    const self = process.argv[1] ?? '';
    const write = process.stdout.write;
    process.stdout.write = function (chunk, ...rest) {
      if (chunk instanceof Uint8Array) {
        for (const ev of decodeFrames(chunk)) {
          countEvent(counts, ev, self);
          any = true;
        }
      }
      return write.call(this, chunk, ...rest);
    };
    process.on('exit', () => {
      // Processes the tests start inherit the environment; only one that sent events counts.
      if (any) fs.writeFileSync(path.join(dir, sentFile(process.pid)), JSON.stringify(counts));
    });
  }
}
