import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './pg.js';

/** Debian's redis-server, or PARLEY_REDIS_SERVER; undefined when the machine has none. */
export function findRedisServer(): string | undefined {
  const candidates = [process.env.PARLEY_REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server'];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

export interface RedisServer {
  url: string;
  port: number;
  /** Its process id while it runs (benchmarks read its CPU from /proc). */
  pid(): number | undefined;
  /** Stops it as a crash would (SIGKILL): nothing is saved, since it keeps nothing on disk. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Whether something accepts connections on the loopback port now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

/**
 * A throwaway Redis on a free loopback port, with no persistence, stopped and its folder
 * removed afterwards: the same pattern as the PostgreSQL tests' cluster.
 */
export async function startRedis(bin = findRedisServer()): Promise<RedisServer> {
  if (!bin) throw new Error('no redis-server on this machine (apt-get install redis-server)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-redis-'));
  const port = await freePort();
  const pidfile = path.join(dir, 'redis.pid');
  const readPid = (): number | undefined => {
    try {
      return Number(fs.readFileSync(pidfile, 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  const start = async (): Promise<void> => {
    fs.rmSync(pidfile, { force: true });
    const r = spawnSync(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--daemonize', 'yes', '--pidfile', pidfile, '--dir', dir, '--logfile', path.join(dir, 'log')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`redis-server failed: ${r.stderr || r.stdout}`);
    // Daemonized: it answers once the pid file exists and the port accepts connections.
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await accepts(port) && readPid() !== undefined) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
    }
  };
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const pid = readPid();
    if (pid === undefined) return;
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
    // Until the process is gone, so that a restart can take the port.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && await accepts(port)) { /* the port closes as the process ends */ }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: readPid,
    kill: () => signal('SIGKILL'),
    start,
    stop: async () => {
      await signal('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
