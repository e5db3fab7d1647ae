/**
 * Migrations that rebuild tables keep what was stored: an SQLite database at migration 008
 * (recipient rows keyed by user, the full-text index holding its own copy of the text)
 * comes out of 009 and 010 with every recipient row and every message searchable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqlBool } from 'kysely';
import { ENGINE } from '../helpers/app.js';
import { migrations } from '../../src/store/migrations/index.js';
import { withStatementCache } from '../../src/store/db.js';
import { scratchDir } from '../helpers/scratch.js';

test('009 and 010 keep every recipient row and the search index of an existing SQLite database', { skip: ENGINE !== 'sqlite' && 'SQLite-only migrations' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-migrate-'));
  // Through the statement cache, which keeps what better-sqlite3 prepares (see KEPT in statement-lifetime.ts).
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(() => new Database(path.join(dir, 'old.sqlite'))) }) });
  try {
    const split = migrations.findIndex((m) => m.name === '009-user-message-by-message');
    assert.ok(split > 0);
    for (const m of migrations.slice(0, split)) await m.up(db, 'sqlite');

    const words = ['walrus', 'penguin', 'walrus penguin'];
    const rows: Array<{ user_id: number; message_id: number; flags: number }> = [];
    for (let id = 1; id <= 30; id++) {
      const content = `${words[id % 3]} number ${id}`;
      await db.insertInto('message').values({
        id, realm_id: 1, sender_id: 1, recipient_id: 1, stream_id: 1, topic: `topic ${id % 4}`, topic_lower: `topic ${id % 4}`,
        content, rendered_content: `<p>${content}</p>`, date_sent: 1_700_000_000 + id, client: 'test',
      }).execute();
      for (let user = 1; user <= 4; user++) if ((id + user) % 3 !== 0) rows.push({ user_id: user, message_id: id, flags: (id * user) % 4 });
    }
    await db.insertInto('user_message').values(rows).execute();

    for (const m of migrations.slice(split)) await m.up(db, 'sqlite');

    const after = await db.selectFrom('user_message').select(['user_id', 'message_id', 'flags']).orderBy('user_id').orderBy('message_id').execute();
    const expected = [...rows].sort((a, b) => a.user_id - b.user_id || a.message_id - b.message_id);
    assert.deepEqual(after, expected);
    // The new key: the rows of one message sit together, and each row is in the read or the unread index.
    const pk = (await sql<{ name: string; pk: number }>`PRAGMA table_info(user_message)`.execute(db)).rows.filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk).map((c) => c.name);
    assert.deepEqual(pk, ['message_id', 'user_id']);
    const indexes = new Map((await sql<{ name: string; sql: string }>`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'user_message'`.execute(db)).rows
      .map((r) => [r.name, r.sql.replace(/\s+/g, ' ')]));
    assert.match(indexes.get('user_message_unread') ?? '', /\(user_id, message_id, flags\) WHERE \(flags & 1\) = 0$/);
    assert.match(indexes.get('user_message_read') ?? '', /\(user_id, message_id, flags\) WHERE \(flags & 1\) <> 0$/);
    for (const [name, cond] of [['starred', '(flags & 2) <> 0'], ['mentioned', '(flags & 56) <> 0'], ['private', '(flags & 2048) <> 0']]) {
      assert.ok(indexes.get(`user_message_${name}`)?.endsWith(`(user_id, message_id) WHERE ${cond}`), name);
    }
    // Reads per user go through those indexes, never a scan of the table.
    const plan = async (where: string) => (await sql.raw<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT message_id, flags FROM user_message WHERE user_id = 2 AND ${where} ORDER BY message_id DESC LIMIT 5`).execute(db)).rows.map((r) => r.detail).join(' | ');
    assert.match(await plan('(flags & 1) = 0'), /USING COVERING INDEX user_message_unread/);
    assert.match(await plan('(flags & 1) <> 0'), /USING COVERING INDEX user_message_read/);
    const unread = await db.selectFrom('user_message').select('message_id').where('user_id', '=', 2).where(sql<SqlBool>`(flags & 1) = 0`).execute();
    assert.deepEqual(unread.map((r) => r.message_id), expected.filter((r) => r.user_id === 2 && (r.flags & 1) === 0).map((r) => r.message_id));

    const match = async (q: string) => (await sql<{ rowid: number }>`SELECT rowid FROM message_fts WHERE message_fts MATCH ${q} ORDER BY rowid`.execute(db)).rows.map((r) => r.rowid);
    assert.deepEqual(await match('walrus'), Array.from({ length: 30 }, (_, i) => i + 1).filter((id) => id % 3 !== 1));
    assert.deepEqual(await match('"topic 2"'), Array.from({ length: 30 }, (_, i) => i + 1).filter((id) => id % 4 === 2));
    await db.deleteFrom('message').where('id', '=', 3).execute();
    await db.updateTable('message').set({ content: 'narwhal' }).where('id', '=', 6).execute();
    assert.deepEqual(await match('narwhal'), [6]);
    assert.ok(!(await match('walrus')).includes(3) && !(await match('walrus')).includes(6));
    await sql`INSERT INTO message_fts (message_fts, rank) VALUES ('integrity-check', 1)`.execute(db);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('077 moves the idle marks off users and keeps each one', { skip: ENGINE !== 'sqlite' && 'the migration is the same SQL on both engines; the suite on PostgreSQL runs it on an empty store' }, async () => {
  const dir = scratchDir('parley-migrate-');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(() => new Database(path.join(dir, 'old.sqlite'))) }) });
  try {
    const split = migrations.findIndex((m) => m.name === '077-idle-mark');
    assert.ok(split > 0);
    for (const m of migrations.slice(0, split)) await m.up(db, 'sqlite');
    // A users row of the schema as it was: every column that must have a value gets one.
    const columns = (await sql<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>`PRAGMA table_info(users)`.execute(db)).rows;
    const user = (id: number, extra: Record<string, unknown>) => Object.fromEntries([
      ...columns.filter((c) => c.notnull && c.dflt_value === null && !c.pk).map((c) => [c.name, /INT/i.test(c.type) ? 0 : `v${id}`]),
      ['id', id], ['email', `u${id}@x.test`], ['email_lower', `u${id}@x.test`], ['api_key', `key${id}`], ...Object.entries(extra),
    ]);
    // No organization row: the marks are what is looked at.
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    await db.insertInto('users').values([
      user(1, { long_term_idle: 1, last_active_message_id: 5, idle_read_through: 3 }),
      user(2, { long_term_idle: 0, last_active_message_id: 9, idle_read_through: null }),
      user(3, { long_term_idle: 0, last_active_message_id: null, idle_read_through: null }),
    ]).execute();

    for (const m of migrations.slice(split)) await m.up(db, 'sqlite');

    assert.deepEqual(await db.selectFrom('idle_mark').selectAll().orderBy('user_id').execute(), [
      { user_id: 1, last_active_message_id: 5, read_through: 3 },
      { user_id: 2, last_active_message_id: 9, read_through: null },
    ]);
    const left = (await sql<{ name: string }>`PRAGMA table_info(users)`.execute(db)).rows.map((c) => c.name);
    assert.ok(left.includes('long_term_idle') && !left.includes('last_active_message_id') && !left.includes('idle_read_through'), left.join());
    // The cache epoch's triggers on users still fire; on idle_mark there are none.
    const epoch = async () => Number((await db.selectFrom('cache_epoch').select('value').executeTakeFirstOrThrow()).value);
    const before = await epoch();
    await db.updateTable('idle_mark').set({ last_active_message_id: 6 }).where('user_id', '=', 1).execute();
    assert.equal(await epoch(), before);
    await db.updateTable('users').set({ long_term_idle: 0 }).where('id', '=', 1).execute();
    assert.equal(await epoch(), before + 1);
  } finally {
    await db.destroy();
  }
});
