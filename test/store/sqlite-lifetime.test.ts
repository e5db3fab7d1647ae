/**
 * better-sqlite3 12's databases and statements must never be garbage collected: on Node 24
 * a collected one can abort the process (see KEPT in src/store/db.ts). So every statement
 * is kept for good, a query compiles to few SQL texts, and a thread's end deletes what it
 * kept. These tests hold on every Node; on Node 24 the last one is the abort's regression test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ENGINE } from '../helpers/app.js';
import { openStore } from '../../src/store/db.js';

const skip = ENGINE !== 'sqlite' && 'SQLite only';

async function tempStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lifetime-'));
  const store = await openStore({ sqlitePath: path.join(dir, 'parley.sqlite') });
  return { store, done: async () => { await store.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

test('IN-lists compile to a few lengths and answer as before; VALUES rows are left alone', { skip }, async () => {
  const { store, done } = await tempStore();
  try {
    const db = store.db;
    await sql`CREATE TABLE t (id integer PRIMARY KEY, v text)`.execute(db);
    for (let id = 1; id <= 40; id++) await db.insertInto('t' as any).values({ id, v: `v${id}` }).execute();
    const texts = new Set<string>();
    for (let n = 1; n <= 40; n++) {
      const ids = Array.from({ length: n }, (_, i) => i * 3 + 1);
      const inQuery = db.selectFrom('t' as any).select('id').where('id', 'in', ids).orderBy('id');
      const notIn = db.selectFrom('t' as any).select('id').where('id', 'not in', ids).orderBy('id');
      texts.add(inQuery.compile().sql);
      assert.deepEqual((await inQuery.execute()).map((r: any) => r.id), ids.filter((id) => id <= 40), `in, ${n}`);
      assert.deepEqual((await notIn.execute()).map((r: any) => r.id), Array.from({ length: 40 }, (_, i) => i + 1).filter((id) => !ids.includes(id)), `not in, ${n}`);
    }
    // Lengths 1, 2, 4, 8, 16, 32 and 64.
    assert.equal(texts.size, 7);
    assert.match(db.selectFrom('t' as any).select('id').where('id', 'in', [5, 6, 7]).compile().sql, /in \(\?, \?, \?, \?\)$/);
    assert.deepEqual(db.selectFrom('t' as any).select('id').where('id', 'in', [5, 6, 7]).compile().parameters, [5, 6, 7, 7]);
    const insert = db.insertInto('t' as any).values([{ id: 41, v: 'a' }, { id: 42, v: 'b' }, { id: 43, v: 'c' }]).compile();
    assert.equal(insert.parameters.length, 6);
  } finally {
    await done();
  }
});

test('more distinct statements than a cache holds: the connections start again and keep answering', { skip }, async () => {
  const { store, done } = await tempStore();
  try {
    const db = store.db;
    await sql`CREATE TABLE t (id integer PRIMARY KEY, v integer)`.execute(db);
    // 2,100 texts each on the request thread's connection (reads) and the writer's (writes).
    for (let i = 0; i < 2100; i++) {
      await sql.raw(`INSERT INTO t (id, v) VALUES (${i}, ${i * 2})`).execute(db);
      const row = (await sql.raw<{ v: number }>(`SELECT v FROM t WHERE id = ${i}`).execute(db)).rows[0];
      assert.equal(row?.v, i * 2);
    }
    const count = await db.selectFrom('t' as any).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 2100);
  } finally {
    await done();
  }
});

test('no statement is ever collected, on any thread, and a process that used SQLite exits cleanly', { skip, timeout: 120_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-exit-'));
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = path.resolve(here, '../helpers/sqlite-churn.ts');
  const tracker = path.resolve(here, '../helpers/sqlite-tracker.cjs');
  try {
    for (const mode of ['close', 'leave open']) {
      const r = spawnSync(process.execPath, ['--expose-gc', '--require', tracker, '--import', 'tsx', child, path.join(dir, `${mode}.sqlite`), mode], { encoding: 'utf8', timeout: 100_000 });
      assert.equal(r.stdout.trim(), 'done', `${mode}: ${r.stderr}`);
      assert.equal(r.signal, null, `${mode}: ${r.stderr}`);
      assert.equal(r.status, 0, `${mode}: ${r.stderr}`);
      const threads = [...r.stderr.matchAll(/^sqlite-tracker (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { thread: number; prepared: number; collected: number });
      // The request thread and, once the store is closed, the writer and checkpointer threads as they end.
      assert.ok(threads.some((t) => t.thread === 0 && t.prepared > 100), `${mode}: ${r.stderr}`);
      if (mode === 'close') assert.equal(threads.filter((t) => t.thread !== 0 && t.prepared > 0).length, 2, r.stderr);
      assert.deepEqual(threads.filter((t) => t.collected > 0), [], `${mode}: statements were collected`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
