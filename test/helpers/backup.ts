/** For the backup tests: the `parley` CLI as its own process, and a server on a given store. */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { ENGINE, OWNER_EMAIL, OWNER_PASSWORD, createPgDatabase } from './app.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';
import { until } from './until.js';
import { scratchDir } from './scratch.js';

/** Where a server keeps its data: a data directory, and on PostgreSQL a database of its own. */
export interface StoreDir { dataDir: string; databaseUrl: string | undefined }

export async function newStore(): Promise<StoreDir> {
  return {
    dataDir: scratchDir('parley-backup-'),
    databaseUrl: ENGINE === 'postgres' ? await createPgDatabase() : undefined,
  };
}

export function storeArgs(s: StoreDir): string[] {
  return ['--data-dir', s.dataDir, ...(s.databaseUrl ? ['--database-url', s.databaseUrl] : [])];
}

export interface CliRun { code: number | null; stdout: string; stderr: string }

/** `parley ARGS` from the sources; never blocks the test's own event loop (its senders keep sending). */
export function runCli(args: string[], onStderr?: (text: string) => void): { done: Promise<CliRun>; exited(): boolean } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: {
      ...process.env, PARLEY_DATABASE_URL: '', PARLEY_DATA_DIR: '', PARLEY_REDIS_URL: '', PARLEY_LOG_LEVEL: 'warn',
      PARLEY_PASSWORD_HASH_MEMORY_KIB: '1024', PARLEY_PASSWORD_HASH_TIME_COST: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr);
  });
  const done = new Promise<CliRun>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  return { done, exited: () => child.exitCode !== null || child.signalCode !== null };
}

export const cli = (args: string[]): Promise<CliRun> => runCli(args).done;

/** A server process on the store (node-process.ts with this data directory and database). */
export function startOn(s: StoreDir): Promise<NodeProcess> {
  return startNodeProcess(s.databaseUrl ?? '', '', { PARLEY_DATA_DIR: s.dataDir });
}

/** Basic auth of the owner, whose key is fetched by password. */
export async function ownerAuth(url: string): Promise<{ authorization: string; userId: number }> {
  const res = await fetch(`${url}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: OWNER_EMAIL, password: OWNER_PASSWORD }) });
  const body = (await res.json()) as { api_key: string; user_id: number };
  return { authorization: `Basic ${Buffer.from(`${OWNER_EMAIL}:${body.api_key}`).toString('base64')}`, userId: body.user_id };
}

/** PostgreSQL only: waits until the backends of a stopped server have gone (a restore refuses a database in use). */
export async function waitIdle(s: StoreDir): Promise<void> {
  if (!s.databaseUrl) return;
  const name = new URL(s.databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: process.env.PARLEY_TEST_PG_URL });
  await client.connect();
  try {
    await until(async () => Number((await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n) === 0,
      { message: 'the stopped server\'s database sessions to end' });
  } finally {
    await client.end();
  }
}
