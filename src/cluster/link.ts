import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { RedisBus } from './redis-bus.js';
import { DurableQueues } from './durable-queues.js';

/** What a cluster node shares with the others through Redis. */
export interface ClusterLink {
  bus: RedisBus;
  /** The command connection (not the bus's blocking reader), for anything else kept in Redis. */
  redis: Redis;
  queues: DurableQueues;
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
    const r = new Redis(url, { maxRetriesPerRequest: null, connectionName: `parley-${name}`, lazyConnect: true,
      retryStrategy: (times) => Math.min(50 * times, 1000) });
    let down = false;
    r.on('error', (err) => {
      if (!down) log.warn({ err: err.message, connection: name }, 'Redis connection lost; reconnecting');
      down = true;
    });
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
  await Promise.all([commands.connect(), reader.connect()]);
  const bus = new RedisBus(commands, reader, log, {
    cluster: config.clusterName, retentionMs: config.clusterBusRetentionSecs * 1000, maxEntries: config.clusterBusMaxEntries,
  });
  await bus.start();
  return { bus, redis: commands, queues: new DurableQueues(commands, config.clusterName), onReconnect: (l) => void reconnected.push(l) };
}
