/**
 * Zulip's own test fixtures, fetched by hand and never committed (they are Zulip's): the
 * first of `<repo>/../shared/fixtures/zulip` and `/work/shared/fixtures/zulip` that exists.
 * Tests using them are skipped, with the reason printed, when neither does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CANDIDATES = [path.resolve(REPO, '../shared/fixtures/zulip'), '/work/shared/fixtures/zulip'];

/** The folder of one fixture set (e.g. `slack`), or a reason to skip. */
export function zulipFixtures(name: string): { dir: string } | { skip: string } {
  for (const base of CANDIDATES) {
    const dir = path.join(base, name);
    if (fs.existsSync(dir)) return { dir };
  }
  const skip = `Zulip's ${name} fixtures are not here (looked in ${CANDIDATES.join(', ')})`;
  process.stdout.write(`# skipped: ${skip}\n`);
  return { skip };
}
