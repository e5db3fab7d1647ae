import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/db.js';

// A store opened and closed without a statement run through it (as a restore's final
// migration check does) lets go of its file: every connection closed, the writer thread
// ended, the WAL folded back in. Kysely destroys only a driver it has started.
const skip = fs.existsSync('/proc/self/fd') ? undefined : 'reads open files from /proc (Linux)';

const openFilesUnder = (dir: string) => fs.readdirSync('/proc/self/fd').flatMap((fd) => {
  try {
    const target = fs.readlinkSync(path.join('/proc/self/fd', fd));
    return target.startsWith(dir) ? [target] : [];
  } catch {
    return [];
  }
});

test('an SQLite store closed unused holds no file open and leaves no WAL behind', { skip }, async (tc) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-close-'));
  tc.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'parley.db');
  const store = await openStore({ sqlitePath: file });
  assert.ok(openFilesUnder(dir).length > 0, 'open while it is open');
  await store.close();
  assert.deepEqual(openFilesUnder(dir), []);
  assert.deepEqual(fs.readdirSync(dir), ['parley.db']);
  // And it opens again, migrated, for a store that is used.
  const again = await openStore({ sqlitePath: file });
  assert.deepEqual(await again.db.selectFrom('realm').select('id').execute(), [], 'a migrated, empty store');
  await again.close();
  assert.deepEqual(openFilesUnder(dir), []);
});
