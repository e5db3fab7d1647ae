import { ENGINE, createPgDatabase, testApp, type TestApp } from './app.js';
import { findRedisServer, startRedis, type RedisServer } from './redis.js';
import type { ConfigOverrides } from '../../src/config.js';
import type { MissedMessageSenders } from '../../src/notifications/senders.js';

/** Why cluster tests cannot run here, or undefined when they can (PostgreSQL and a redis-server). */
export function clusterUnavailable(): string | undefined {
  if (ENGINE !== 'postgres') return 'cluster nodes share a PostgreSQL database: run on the postgres engine';
  if (!findRedisServer()) return 'no redis-server on this machine (apt-get install redis-server)';
  return undefined;
}

export interface InProcessCluster {
  nodes: TestApp[];
  redis: RedisServer;
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * `n` server nodes in this process on one fresh PostgreSQL database and one throwaway
 * Redis: each with its own HTTP app, queues and bus connection, as separate processes
 * would have; `notificationSenders` records what each node's notification worker sends. (Process-wide things, the cache signal, are shared: that only retires more.)
 */
export async function inProcessCluster(n: number, overrides: ConfigOverrides = {}, opts: { notificationSenders?: (node: number) => MissedMessageSenders } = {}): Promise<InProcessCluster> {
  const redis = await startRedis();
  const databaseUrl = await createPgDatabase();
  const nodes: TestApp[] = [];
  for (let i = 0; i < n; i++) nodes.push(await testApp({ databaseUrl, redisUrl: redis.url, ...overrides }, { notificationSenders: opts.notificationSenders?.(i) }));
  return {
    nodes, redis, databaseUrl,
    close: async () => {
      for (const node of nodes) await node.close();
      await redis.stop();
    },
  };
}
