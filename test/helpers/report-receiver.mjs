/**
 * A `node --test` reporter for the runner's side: counts the results that reached the
 * runner from each test file's process, per file, into the counts folder (test/run.ts).
 * It writes nothing to its own destination. The counts are written synchronously when the
 * events end and again when the process exits, so a runner that ends early still leaves them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { COUNTS_DIR_ENV, RECEIVED_FILE, countEvent } from './report-counts.mjs';

export default async function* receiver(source) {
  const dir = process.env[COUNTS_DIR_ENV];
  const counts = {};
  const save = () => { if (dir) fs.writeFileSync(path.join(dir, RECEIVED_FILE), JSON.stringify(counts)); };
  process.on('exit', save);
  for await (const ev of source) countEvent(counts, ev, '(no file)');
  save();
  yield '';
}
