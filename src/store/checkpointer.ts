import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

/**
 * WAL checkpoints off the request thread. SQLite normally checkpoints inside the COMMIT
 * that pushes the WAL past a threshold, copying pages into the database and syncing it
 * while every request waits; under a steady stream of sends that was a fifth of the
 * server's time. A worker thread with its own connection runs PASSIVE checkpoints,
 * which never block the writer, and the main connection keeps a far higher threshold
 * of its own as a backstop should the worker fall behind.
 */
export const BACKSTOP_PAGES = 20_000;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.exec('PRAGMA busy_timeout = 1000');
// Prepared once and kept: pragma() would prepare a statement per call, and one collected by the
// garbage collector can abort the process on Node 24 (see KEPT in statement-lifetime.ts).
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try { checkpoint.get(); } catch (err) { parentPort.postMessage(String(err)); }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Often and small: each checkpoint ends with fsyncs, and while the filesystem commits them
 * the writer's next COMMIT can wait (ext4 journals the WAL file's changed mtime). That wait
 * grows with what the checkpoint flushed: during a burst of sends, checkpoints every 250 ms
 * held some COMMITs for 40 ms, every 1 s for 100 ms, every 50 ms for under 20 ms. An idle
 * checkpoint only reads the WAL header.
 */
export function startCheckpointer(file: string, onError: (message: string) => void, intervalMs = 50): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, intervalMs } });
  worker.on('message', (m) => onError(String(m)));
  worker.on('error', (err) => onError(String(err)));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: () => {
      // Referenced again so the process stays up until the worker has closed its connection.
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}
