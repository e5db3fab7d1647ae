import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ENGINE, testApp } from '../helpers/app.js';
import { boundImportMemory, IMPORT_SQLITE_CACHE_MIB } from '../../src/import/memory.js';

// The SQLite page cache is a setting (PARLEY_SQLITE_CACHE_MIB, 64 MiB by default) that every
// connection takes, the writer thread's included; `parley import` opens its store with a
// smaller one to stay within its memory bound (src/import/memory.ts).
const skip = ENGINE !== 'sqlite' ? 'SQLite only: PostgreSQL has no per-connection page cache setting' : undefined;

async function cacheSizes(mib?: number): Promise<{ reader: number; writer: number }> {
  const t = await testApp(mib === undefined ? {} : { sqliteCacheMib: mib });
  try {
    const { db } = t.app.ctx.store;
    const reader = (await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(db)).rows[0]!.cache_size;
    const { results } = await t.app.ctx.store.script([sql`PRAGMA cache_size`.compile(db)]);
    const writer = (results[0]!.rows[0] as { cache_size: number }).cache_size;
    return { reader, writer };
  } finally {
    await t.close();
  }
}

test('every SQLite connection takes the configured page cache: 64 MiB by default, the setting when given', { skip }, async () => {
  assert.deepEqual(await cacheSizes(), { reader: -64 * 1024, writer: -64 * 1024 });
  assert.deepEqual(await cacheSizes(16), { reader: -16 * 1024, writer: -16 * 1024 });
});

test('an import opens its store with the smaller cache unless PARLEY_SQLITE_CACHE_MIB is set', async () => {
  const before = process.env.PARLEY_SQLITE_CACHE_MIB;
  try {
    delete process.env.PARLEY_SQLITE_CACHE_MIB;
    assert.deepEqual(boundImportMemory(), { sqliteCacheMib: IMPORT_SQLITE_CACHE_MIB });
    process.env.PARLEY_SQLITE_CACHE_MIB = '48';
    assert.deepEqual(boundImportMemory(), {}, 'the operator\'s setting wins');
  } finally {
    if (before === undefined) delete process.env.PARLEY_SQLITE_CACHE_MIB;
    else process.env.PARLEY_SQLITE_CACHE_MIB = before;
  }
});
