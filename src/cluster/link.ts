import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { RedisBus } from './redis-bus.js';
import { DurableQueues } from './durable-queues.js';
import { UserQueues } from './user-queues.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** What a cluster node shares with the others through Redis. */
export interface ClusterLink {
  bus: RedisBus;
  /** The command connection (not the bus's blocking reader), for anything else kept in Redis. */
  redis: Redis;
  queues: DurableQueues;
  /** Each user's live message queues, whichever node holds them (away detection for notifications). */
  userQueues: UserQueues;
  /** Called each time the command connection is back after Redis was away (it may have lost its keys). */
  onReconnect(listener: () => void): void;
}

/**
 * Connects to the cluster's Redis. Commands wait through an outage rather than fail
 * (maxRetriesPerRequest null): a publish or checkpoint made while Redis restarts is
 * carried out when it is back, and requests that published wait for it.
 */
export async function joinCluster(config: Config, log: Logger): Promise<ClusterLink> {
  const url = config.redisUrl!;
  const reconnected: Array<() => void> = [];
  const connect = (name: string): Redis => {
    // Auto-pipelining: the commands of one turn of the event loop (a burst of checkpoints,
    // several publishes) leave in one write.
    const r = new Redis(url, { maxRetriesPerRequest: null, connectionName: `parley-${name}`, lazyConnect: true, enableAutoPipelining: name === 'commands',
      retryStrategy: (times) => Math.min(50 * times, 1000) });
    let down = false;
    const lost = (why: string): void => {
      if (!down) log.warn({ why, connection: name }, 'Redis connection lost; reconnecting');
      down = true;
    };
    r.on('error', (err) => lost(err.message));
    // A Redis that restarts at once may come back with no error in between: the closed connection tells.
    r.on('close', () => setImmediate(() => {
      if (r.status !== 'end') lost('connection closed'); // 'end': closed on purpose, at shutdown
    }));
    r.on('ready', () => {
      if (down) {
        log.info({ connection: name }, 'Redis connection back');
        if (name === 'commands') for (const l of reconnected) l();
      }
      down = false;
    });
    return r;
  };
  const commands = connect('commands');
  const reader = connect('bus');
  // A node does not start without its Redis: it could neither hear the others nor be heard.
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([commands.connect(), reader.connect()]),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS))),
    ]);
  } catch (err) {
    commands.disconnect();
    reader.disconnect();
    const where = new URL(url);
    where.password = '';
    throw new Error(`cannot reach the cluster's Redis at ${where.toString()}: ${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  const bus = new RedisBus(commands, reader, log, {
    cluster: config.clusterName, retentionMs: config.clusterBusRetentionSecs * 1000, maxEntries: config.clusterBusMaxEntries,
  });
  await bus.start();
  return { bus, redis: commands, queues: new DurableQueues(commands, config.clusterName), userQueues: new UserQueues(commands, config.clusterName), onReconnect: (l) => void reconnected.push(l) };
}
