import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './pg.js';
import { HOST, OWNER_EMAIL, OWNER_PASSWORD } from './app.js';
import { until } from './until.js';

export interface NodeProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stderr and stdout, for a failing test's message. */
  output(): string;
  /** SIGKILL: the node dies as in a crash, saving nothing. */
  kill(): Promise<void>;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>;
}

/**
 * A server node as its own process (`parley serve` from the sources), on the given
 * PostgreSQL database and Redis: what a test kills with SIGKILL.
 */
export async function startNodeProcess(databaseUrl: string, redisUrl: string, env: Record<string, string> = {}): Promise<NodeProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-node-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--host', '127.0.0.1', '--port', String(port)], {
    env: {
      ...process.env, PARLEY_DATA_DIR: dataDir, PARLEY_DATABASE_URL: databaseUrl, PARLEY_REDIS_URL: redisUrl,
      PARLEY_EXTERNAL_URL: `http://${HOST}`, PARLEY_ADMIN_EMAIL: OWNER_EMAIL, PARLEY_ADMIN_PASSWORD: OWNER_PASSWORD,
      PARLEY_LOG_LEVEL: 'warn', PARLEY_RATE_LIMITING: 'false', PARLEY_PASSWORD_HASH_MEMORY_KIB: '1024', PARLEY_PASSWORD_HASH_TIME_COST: '1', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`node exited at start: ${out}`);
    try {
      return (await fetch(`${url}/api/v1/server_settings`)).ok;
    } catch {
      return false;
    }
  }, { timeoutMs: 60_000, message: () => `node on ${url} to answer: ${out}` });
  const cleanup = (): void => fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    url, child, output: () => out,
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      cleanup();
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      cleanup();
      return code;
    },
  };
}
