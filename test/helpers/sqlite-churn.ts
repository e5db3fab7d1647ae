/**
 * Run as its own process by test/store/sqlite-lifetime.test.ts: opens a store on the file
 * argv[2], prepares many distinct statements while making garbage enough for the collector
 * to run often, then ends with its store closed (argv[3] 'close') or left open.
 */
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.js';

const store = await openStore({ sqlitePath: process.argv[2] });
await sql`CREATE TABLE t (id integer PRIMARY KEY, v text)`.execute(store.db);
let junk: unknown[] = [];
for (let i = 0; i < 3000; i++) {
  await sql.raw(`INSERT INTO t (id, v) VALUES (${i}, '${'x'.repeat(i % 50)}')`).execute(store.db);
  await store.db.selectFrom('t' as any).select('id').where('id', 'in', Array.from({ length: (i % 300) + 1 }, (_, k) => k)).execute();
  await sql.raw(`SELECT count(*) AS n FROM t WHERE id > ${i}`).execute(store.db);
  junk.push(new Array(200).fill(i));
  if (junk.length > 500) junk = [];
}
if (process.argv[3] === 'close') await store.close();
console.log('done');
