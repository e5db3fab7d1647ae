/**
 * `npm run bench -- recipient-rows [messages] [batch]`: the storage ceiling under the send
 * path, without HTTP. Inserts messages to 100-member streams in group-commit batches
 * (default 32, as many as the send benchmark's concurrent senders) with one recipient row
 * per member, on an SQLite file in WAL mode, for three layouts of the recipient rows:
 *
 * - `user-keyed`: Zulip's layout (and Parley's before migration 009), keyed (user_id,
 *   message_id), with the partial unread index and the (message_id) index: two user-keyed
 *   B-trees per row;
 * - `parley`: keyed (message_id, user_id), every row in exactly one of two user-keyed
 *   partial indexes (unread or read): one user-keyed B-tree per row;
 * - `no-user-tree`: keyed (message_id, user_id), no user-keyed index at all.
 *
 * Each user-keyed B-tree costs a page write per recipient per batch; this shows what each
 * one costs. Checkpoints are left out (Parley runs them in a worker thread).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MESSAGES = Number(process.argv[2] ?? 20_000);
const BATCH = Number(process.argv[3] ?? 32);
const PRELOAD = 200_000;
const MEMBERS = 100;

const LAYOUTS: Record<string, string[]> = {
  'user-keyed': [
    'CREATE TABLE user_message (user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL DEFAULT 0, PRIMARY KEY (user_id, message_id)) WITHOUT ROWID',
    'CREATE INDEX user_message_message ON user_message (message_id)',
    'CREATE INDEX user_message_unread ON user_message (user_id, message_id) WHERE (flags & 1) = 0',
  ],
  parley: [
    'CREATE TABLE user_message (user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL DEFAULT 0, PRIMARY KEY (message_id, user_id)) WITHOUT ROWID',
    'CREATE INDEX user_message_unread ON user_message (user_id, message_id) WHERE (flags & 1) = 0',
    'CREATE INDEX user_message_read ON user_message (user_id, message_id) WHERE (flags & 1) <> 0',
  ],
  'no-user-tree': [
    'CREATE TABLE user_message (user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL DEFAULT 0, PRIMARY KEY (message_id, user_id)) WITHOUT ROWID',
  ],
};

function run(layout: string, dir: string): number {
  const db = new Database(path.join(dir, `${layout}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.pragma('wal_autocheckpoint = 0');
  // As Parley's store: statement journals in memory, and OR IGNORE inserts that need none.
  db.pragma('temp_store = MEMORY');
  db.exec('CREATE TABLE message (id INTEGER PRIMARY KEY, recipient_id integer, sender_id integer, topic text, content text, rendered text, date_sent real)');
  db.exec('CREATE INDEX message_recipient ON message (recipient_id, id)');
  for (const ddl of LAYOUTS[layout]!) db.exec(ddl);
  // Zulip's other partial indexes: empty for plain stream messages, but every insert tests them.
  db.exec('CREATE INDEX user_message_starred ON user_message (user_id, message_id) WHERE (flags & 2) <> 0');
  db.exec('CREATE INDEX user_message_mentioned ON user_message (user_id, message_id) WHERE (flags & 24) <> 0');
  db.exec('CREATE INDEX user_message_private ON user_message (user_id, message_id) WHERE (flags & 2048) <> 0');
  const insertMessage = db.prepare('INSERT INTO message (recipient_id, sender_id, topic, content, rendered, date_sent) VALUES (?, ?, ?, ?, ?, ?)');
  const inserts = new Map<number, Database.Statement>();
  let sent = 0;
  const batch = (n: number) => {
    db.exec('BEGIN');
    const rows: Array<[number, number, number]> = [];
    for (let i = 0; i < n; i++) {
      const sender = 1 + (sent % MEMBERS);
      const id = Number(insertMessage.run(1 + (sent % 10), sender, 'topic', 'hello there', '<p>hello there</p>', Date.now() / 1000).lastInsertRowid);
      sent++;
      for (let u = 1; u <= MEMBERS; u++) rows.push([u, id, u === sender ? 1 : 0]);
    }
    // As the writer thread does: one multi-row insert per batch, in the table's key order.
    rows.sort(layout === 'user-keyed' ? (a, b) => a[0] - b[0] || a[1] - b[1] : (a, b) => a[1] - b[1] || a[0] - b[0]);
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      let stmt = inserts.get(chunk.length);
      if (!stmt) inserts.set(chunk.length, (stmt = db.prepare(`INSERT OR IGNORE INTO user_message (user_id, message_id, flags) VALUES ${Array(chunk.length).fill('(?, ?, ?)').join(', ')}`)));
      stmt.run(chunk.flat());
    }
    db.exec('COMMIT');
  };
  while (sent < PRELOAD) {
    batch(500);
    if (sent % 50_000 === 0) process.stderr.write(`\r  ${layout}: preloading ${sent}/${PRELOAD} messages`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  process.stderr.write(`\r  ${layout}: measuring ${MESSAGES} messages in batches of ${BATCH}...          \n`);
  const started = performance.now();
  for (let done = 0; done < MESSAGES; done += BATCH) batch(BATCH);
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rows-'));
try {
  for (const layout of Object.keys(LAYOUTS)) {
    const rate = run(layout, dir);
    process.stdout.write(`${layout.padEnd(14)} ${Math.round(rate).toLocaleString('en-US')} messages/s (${Math.round(rate * MEMBERS).toLocaleString('en-US')} recipient rows/s)\n`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
