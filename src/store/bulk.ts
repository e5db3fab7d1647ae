/**
 * Many rows at once, for the importer: multi-row INSERTs whose text is built once per shape
 * and run as compiled queries (Kysely's builder took longer than the engines to insert tens
 * of thousands of rows). Table and column names come from code, never from input.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Q } from './rows.js';
import { dialectOf } from './db.js';

/** Parameters per statement, under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMS = 30_000;

const texts = new Map<string, string>();

function insertText(q: Q, table: string, columns: readonly string[], rows: number): string {
  const { batch } = dialectOf(q as Kysely<DB>);
  const key = `${batch.engine}\u0000${table}\u0000${columns.join(',')}\u0000${rows}`;
  let text = texts.get(key);
  if (text === undefined) {
    if (texts.size > 500) texts.clear();
    let p = 0;
    const tuple = () => `(${columns.map(() => batch.param(p++)).join(', ')})`;
    text = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}`;
    texts.set(key, text);
  }
  return text;
}

/**
 * Inserts `rows` (values in `columns` order) in few statements: full ones as large as the
 * parameter limits allow, the rest in power-of-two sizes. The engines keep each statement
 * text they prepare; with a size per remainder, an import prepared hundreds of distinct
 * statements of thousands of parameters each, and the writer's memory grew with them.
 */
export async function insertMany(q: Q, table: keyof DB & string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Promise<void> {
  const flat: unknown[] = [];
  for (const r of rows) for (const v of r) flat.push(v);
  await insertFlat(q, table, columns, flat);
}

/** insertMany with the rows' values laid end to end (`columns.length` per row): no array per row. */
export async function insertFlat(q: Q, table: keyof DB & string, columns: readonly string[], values: readonly unknown[]): Promise<void> {
  for (const statement of insertStatements(q, table, columns, values)) await q.executeQuery(statement);
}

/** The statements insertFlat runs, compiled and not run: for a Store.script. */
export function insertStatements(q: Q, table: keyof DB & string, columns: readonly string[], values: readonly unknown[]): CompiledQuery[] {
  const width = columns.length;
  const rows = values.length / width;
  const out: CompiledQuery[] = [];
  const largest = 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(MAX_PARAMS / width))));
  for (let i = 0; i < rows;) {
    let size = largest;
    while (size > rows - i) size /= 2;
    out.push(CompiledQuery.raw(insertText(q, table, columns, size), values.slice(i * width, (i + size) * width)));
    i += size;
  }
  return out;
}
