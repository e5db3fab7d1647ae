/**
 * The engine side of `parley backup` and `parley restore`: a consistent copy of a live
 * database and loading one back. SQLite copies through its online backup API on a read
 * transaction of its own (WAL keeps that snapshot while the server writes); PostgreSQL
 * through pg_dump, whose custom format pg_restore reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Kysely } from 'kysely';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { DB } from './schema.js';
import { BoundedPostgresDialect } from './long-lists.js';
import { BoundedSqliteDialect } from './sqlite-dialect.js';
import { hasSchema, storeState } from './repos/store-state.js';
import { migrations } from './migrations/index.js';
import { restrictFiles } from '../lib/private-files.js';

export type Engine = 'sqlite' | 'postgres';

export type DatabaseTarget = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/** A refusal the operator can act on: the CLI prints it as one line. */
export class BackupRefusal extends Error {}

export function databaseTarget(databaseUrl: string | undefined, dataDir: string): DatabaseTarget {
  return databaseUrl ? { engine: 'postgres', url: databaseUrl } : { engine: 'sqlite', file: path.join(dataDir, 'parley.db') };
}

/** The database's file name inside a backup. */
export const DUMP_NAME: Record<Engine, string> = { sqlite: 'parley.db', postgres: 'parley.dump' };

/** Every migration this Parley knows, by name. */
export const KNOWN_MIGRATIONS: ReadonlySet<string> = new Set(migrations.map((m) => m.name));

export interface DatabaseState {
  /** Parley's schema is there (a new file or database has none). */
  initialized: boolean;
  migrations: string[];
  holdsData: boolean;
}

async function withDb<T>(target: DatabaseTarget, fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  let db: Kysely<DB>;
  if (target.engine === 'postgres') {
    db = new Kysely<DB>({ dialect: new BoundedPostgresDialect({ pool: new pg.Pool({ connectionString: target.url, max: 1 }) }) });
  } else {
    const sqlite = new Database(target.file, { readonly: true, fileMustExist: true });
    sqlite.exec('PRAGMA busy_timeout = 5000;');
    db = new Kysely<DB>({ dialect: new BoundedSqliteDialect({ database: sqlite }) });
  }
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

export async function inspectDatabase(target: DatabaseTarget): Promise<DatabaseState> {
  if (target.engine === 'sqlite' && (!fs.existsSync(target.file) || fs.statSync(target.file).size === 0)) {
    return { initialized: false, migrations: [], holdsData: false };
  }
  return withDb(target, async (db) => {
    if (!(await hasSchema(db))) return { initialized: false, migrations: [], holdsData: false };
    return { initialized: true, migrations: await storeState.appliedMigrations(db), holdsData: await storeState.holdsData(db) };
  });
}

/**
 * Copies the live database to `out`; answers the migrations the copy holds. `progress`
 * hears (done, total) in pages (SQLite) or tables (PostgreSQL).
 */
export async function dumpDatabase(target: DatabaseTarget, out: string, progress: (done: number, total: number) => void): Promise<string[]> {
  if (target.engine === 'sqlite') {
    await backupSqlite(target.file, out, progress);
    return (await inspectDatabase({ engine: 'sqlite', file: out })).migrations;
  }
  const state = await inspectDatabase(target);
  if (!state.initialized) throw new BackupRefusal('the PostgreSQL database holds no Parley store: nothing to back up');
  const tables = await withDb(target, async (db) => (await db.introspection.getTables()).length);
  let dumped = 0;
  progress(0, tables);
  await runTool('pg_dump', ['--format=custom', '--verbose', '--no-owner', '--no-privileges', `--file=${out}`, `--dbname=${target.url}`], (line) => {
    if (line.includes('dumping contents of table')) progress(++dumped, tables);
  });
  restrictFiles(out);
  return state.migrations;
}

async function backupSqlite(file: string, out: string, progress: (done: number, total: number) => void): Promise<void> {
  if (!fs.existsSync(file)) throw new BackupRefusal(`no database at ${file}: nothing to back up (give the server's --data-dir)`);
  const source = new Database(file, { readonly: true, fileMustExist: true });
  try {
    source.exec('PRAGMA busy_timeout = 5000;');
    // The backup API restarts whenever another connection writes between its steps, which
    // under steady sends could be forever; a read transaction held across every step pins
    // one WAL snapshot, so the copy is that moment's database and finishes in one pass.
    source.exec('BEGIN');
    source.prepare('SELECT count(*) FROM sqlite_master').get();
    // The backup writes a 0644 file: create it private first.
    fs.closeSync(fs.openSync(out, 'wx', 0o600));
    const result = await source.backup(out, {
      progress: ({ totalPages, remainingPages }) => {
        progress(totalPages - remainingPages, totalPages);
        // Big steps: a step's cost is mostly its fixed overhead, and the snapshot is held anyway.
        return Math.max(256, Math.ceil(totalPages / 100));
      },
    });
    progress(result.totalPages, result.totalPages);
  } finally {
    if (source.inTransaction) source.exec('ROLLBACK');
    source.close();
  }
  // A copy of a WAL database opens in WAL mode: folding its -wal back leaves one file.
  const copy = new Database(out);
  try {
    copy.exec('PRAGMA journal_mode = DELETE;');
  } finally {
    copy.close();
  }
}

/**
 * Why the database cannot be replaced now, or undefined: a server (or any other client) has
 * it open. SQLite: leaving WAL mode needs the only connection, so a probe tells; PostgreSQL:
 * other sessions on the database.
 */
export async function databaseInUse(target: DatabaseTarget): Promise<string | undefined> {
  if (target.engine === 'postgres') {
    const others = await withDb(target, (db) => storeState.otherSessions(db));
    return others > 0 ? `${others} other session(s) are connected to the database: stop the Parley server (and anything else using it) first` : undefined;
  }
  if (!fs.existsSync(target.file)) return undefined;
  const probe = new Database(target.file, { fileMustExist: true });
  try {
    probe.exec('PRAGMA busy_timeout = 0;');
    const mode = probe.pragma('journal_mode', { simple: true });
    if (mode !== 'wal') return undefined;
    try {
      probe.pragma('journal_mode = DELETE');
    } catch {
      return `${target.file} is open in another process: stop the Parley server first`;
    }
    probe.pragma('journal_mode = WAL');
    return undefined;
  } finally {
    probe.close();
  }
}

/** Puts the dump in place of the target's database (the caller has checked it may). */
export async function loadDatabase(target: DatabaseTarget, dump: string): Promise<void> {
  if (target.engine === 'postgres') {
    // One transaction: a restore that fails part way leaves the database as it was.
    await runTool('pg_restore', ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', `--dbname=${target.url}`, dump], () => {});
    return;
  }
  fs.mkdirSync(path.dirname(target.file), { recursive: true });
  const incoming = `${target.file}.restoring`;
  fs.copyFileSync(dump, incoming);
  restrictFiles(incoming);
  // The old -wal would be replayed into the new file: it belongs to the database it replaces.
  for (const extra of ['-wal', '-shm', '-journal']) fs.rmSync(`${target.file}${extra}`, { force: true });
  fs.renameSync(incoming, target.file);
}

/** pg_dump / pg_restore: the newest of Debian's versioned installs (they read older servers), else PATH. */
export function findPgTool(name: 'pg_dump' | 'pg_restore'): string | undefined {
  const root = '/usr/lib/postgresql';
  const versioned = fs.existsSync(root)
    ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)).map((v) => path.join(root, v, 'bin', name)) : [];
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, name));
  return [...versioned, ...onPath].find((f) => {
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function runTool(name: 'pg_dump' | 'pg_restore', args: string[], onLine: (line: string) => void): Promise<void> {
  const tool = findPgTool(name);
  if (!tool) throw new BackupRefusal(`${name} is not installed (looked in /usr/lib/postgresql/*/bin and PATH): install PostgreSQL's client tools`);
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let pending = '';
    const tail: string[] = [];
    let last = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        onLine(line);
        if (line.trim() !== '') last = line;
        // --verbose narrates every step; the failure is the line that says error.
        if (/error|fatal/i.test(line)) tail.push(line);
      }
    });
    child.on('error', (err) => reject(new BackupRefusal(`${name} could not run: ${err.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new BackupRefusal(`${name} failed (${code ?? signal}): ${(tail[0] ?? last).trim() || 'no message'}`));
    });
  });
}
