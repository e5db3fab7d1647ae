import type { Redis } from 'ioredis';

/** A live queue is written again at most this often: its lifespan is minutes, so a little stale is exact enough. */
const TOUCH_EVERY_MS = 30_000;

/**
 * Which of a user's event queues that take message events are alive, for the away test of
 * missed-message notifications (src/notifications/away.ts): the node deciding need not be
 * the one holding the queue. One hash per user, queue id -> the time (ms) the queue expires
 * if not polled again; a queue deleted or collected is removed, and a node that died leaves
 * entries that simply expire. Written on creation, then at most every 30 s per polled queue.
 */
export class UserQueues {
  private touched = new Map<string, number>();

  constructor(private redis: Redis, private cluster: string) {}

  private key(userId: number): string {
    return `${this.cluster}:uq:${userId}`;
  }

  /** The queue was made or polled: alive until `lifespanSecs` from now. */
  alive(userId: number, queueId: string, lifespanSecs: number, now = Date.now()): void {
    const last = this.touched.get(queueId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.set(queueId, now);
    const ms = lifespanSecs * 1000 + TOUCH_EVERY_MS;
    const key = this.key(userId);
    void this.redis.multi().hset(key, queueId, String(now + ms)).pexpire(key, ms, 'NX').pexpire(key, ms, 'GT').exec().catch(() => undefined);
  }

  /** Redis came back and may have lost its keys: the next poll of each queue writes again. */
  forget(): void {
    this.touched.clear();
  }

  gone(userId: number, queueId: string): void {
    this.touched.delete(queueId);
    void this.redis.hdel(this.key(userId), queueId).catch(() => undefined);
  }

  /** Those of these users with a message queue alive at `now` on any node. */
  async withLiveQueues(userIds: number[], now: number): Promise<Set<number>> {
    const out = new Set<number>();
    if (userIds.length === 0) return out;
    const p = this.redis.pipeline();
    for (const id of userIds) p.hvals(this.key(id));
    const answers = (await p.exec()) ?? [];
    answers.forEach(([err, vals], i) => {
      if (!err && Array.isArray(vals) && vals.some((v) => Number(v) > now)) out.add(userIds[i]!);
    });
    return out;
  }
}
