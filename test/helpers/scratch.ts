import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

/**
 * A temporary folder that goes when the test file's process ends, passed or failed: tests
 * that only read what they wrote there need not remove it (thousands were left in /tmp).
 */
export function scratchDir(prefix: string): string {
  if (made.length === 0) process.once('exit', () => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
