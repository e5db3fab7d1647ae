import type { Redis } from 'ioredis';
import type { Checkpoint, QueueOptions } from '../events/queue.js';
import { busStream } from './redis-bus.js';
import { compareIds } from './stream-ids.js';
import type { EventEnvelope } from '../events/types.js';

export type { Checkpoint };

export interface SavedQueue { options: QueueOptions; checkpoint: Checkpoint }

// A key outlives its queue's lifespan a little, so that a node that collects it first decides.
const SLACK_MS = 60_000;

/**
 * What must outlive a queue's node, in Redis: the queue's options and its latest
 * checkpoint, one small hash per queue that expires with the queue. The events
 * themselves are not copied: they are the bus's entries, kept for the bus's retention.
 */
export class DurableQueues {
  private readonly stream: string;

  constructor(private redis: Redis, private cluster: string) {
    this.stream = busStream(cluster);
    // Sent once, then called by its digest (EVALSHA): a checkpoint is the commonest write.
    redis.defineCommand('parleyCheckpoint', {
      numberOfKeys: 1,
      // Only if the queue is still there: a checkpoint must not bring back a deleted queue.
      lua: "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'ck', ARGV[1]); redis.call('PEXPIRE', KEYS[1], ARGV[2]) end",
    });
  }

  private key(id: string): string {
    return `${this.cluster}:q:${id}`;
  }

  async create(id: string, options: QueueOptions, checkpoint: Checkpoint): Promise<void> {
    await this.redis.multi()
      .hset(this.key(id), 'options', JSON.stringify(options), 'ck', `${checkpoint.id} ${checkpoint.pos}`)
      .pexpire(this.key(id), options.lifespanSecs * 1000 + SLACK_MS)
      .exec();
  }

  /** Records a newer checkpoint and renews the queue's lifespan. */
  async checkpoint(id: string, checkpoint: Checkpoint, lifespanSecs: number): Promise<void> {
    const r = this.redis as Redis & { parleyCheckpoint(key: string, ck: string, ttlMs: string): Promise<unknown> };
    await r.parleyCheckpoint(this.key(id), `${checkpoint.id} ${checkpoint.pos}`, String(lifespanSecs * 1000 + SLACK_MS));
  }

  async load(id: string): Promise<SavedQueue | undefined> {
    const [options, ck] = await this.redis.hmget(this.key(id), 'options', 'ck');
    if (!options || !ck) return undefined;
    const space = ck.indexOf(' ');
    return { options: JSON.parse(options) as QueueOptions, checkpoint: { id: Number(ck.slice(0, space)), pos: ck.slice(space + 1) } };
  }

  async remove(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  /** Whether every bus entry after `pos` is still kept (none has been trimmed). */
  async replayableFrom(pos: string): Promise<boolean> {
    let info: unknown[];
    try {
      info = await this.redis.xinfo('STREAM', this.stream) as unknown[];
    } catch (err) {
      // No stream: nothing was ever published, so nothing after `pos` is missing.
      if (String((err as Error).message).includes('no such key')) return true;
      throw err;
    }
    const i = info.indexOf('max-deleted-entry-id');
    if (i < 0) throw new Error('Redis 7.0 or later is needed (XINFO STREAM max-deleted-entry-id)');
    return compareIds(String(info[i + 1]), pos) <= 0;
  }

  /** The bus's event entries after `from`, up to and including `upto`, in order. */
  async *entries(from: string, upto: string): AsyncGenerator<[string, EventEnvelope]> {
    let start = `(${from}`;
    if (compareIds(from, upto) >= 0) return;
    for (;;) {
      const batch = await this.redis.xrange(this.stream, start, upto, 'COUNT', 1000);
      for (const [id, fields] of batch) {
        const entry = JSON.parse(fields[1] ?? 'null') as { e?: EventEnvelope } | null;
        if (entry?.e) yield [id, entry.e];
      }
      if (batch.length < 1000) return;
      start = `(${batch[batch.length - 1]![0]}`;
    }
  }
}
