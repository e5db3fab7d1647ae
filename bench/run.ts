/**
 * `npm run bench -- <name> [args]` runs bench/<name>.ts; with no name, lists them.
 * Benchmarks print their figures; they never fail on a timing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const dir = path.dirname(new URL(import.meta.url).pathname);
const names = fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_')).map((f) => f.slice(0, -3));
const [name, ...args] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  process.stdout.write(`usage: npm run bench -- <name>\navailable: ${names.join(', ')}\n`);
  process.exit(name ? 1 : 0);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, `${name}.ts`), ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
