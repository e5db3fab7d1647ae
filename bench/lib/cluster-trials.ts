/**
 * Trials of fixes for a cluster node's per-poll cost, applied from outside to a running
 * node (BENCH_CLUSTER_TRIAL, comma-separated) so that bench/cluster-cost.ts can measure
 * them before anyone changes src/cluster/. Not for production: they reach into objects.
 *   autopipeline: ioredis batches the commands issued in one event-loop turn into one
 *     write (its enableAutoPipelining option), instead of one write() per command.
 *   lazy-checkpoints: a queue's checkpoint is saved at most once a second, all queues'
 *     in one pipeline, instead of one EVAL per poll. (Safe in principle: a queue rebuilt
 *     from an older checkpoint numbers its events the same, and the client's
 *     last_event_id drops those it had; heartbeats still wait for their save.)
 */
import type { AppContext } from '../../src/context.js';
import type { Checkpoint } from '../../src/cluster/durable-queues.js';

const SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'ck', ARGV[1]); redis.call('PEXPIRE', KEYS[1], ARGV[2]) end";
const SLACK_MS = 60_000;

export function applyClusterTrials(ctx: AppContext, trials: string[]): void {
  const link = ctx.cluster;
  if (!link) return;
  if (trials.includes('autopipeline')) (link.redis.options as { enableAutoPipelining: boolean }).enableAutoPipelining = true;
  if (trials.includes('lazy-checkpoints')) {
    const durable = link.queues as unknown as { cluster: string; checkpoint: (id: string, ck: Checkpoint, lifespanSecs: number) => Promise<void> };
    const dirty = new Map<string, { ck: Checkpoint; lifespanSecs: number }>();
    let waiting: Array<() => void> = [];
    durable.checkpoint = (id, ck, lifespanSecs) => {
      dirty.set(id, { ck, lifespanSecs });
      return new Promise<void>((resolve) => waiting.push(resolve));
    };
    setInterval(() => {
      if (dirty.size === 0) return;
      const batch = link.redis.pipeline();
      for (const [id, { ck, lifespanSecs }] of dirty) batch.eval(SCRIPT, 1, `${durable.cluster}:q:${id}`, `${ck.id} ${ck.pos}`, String(lifespanSecs * 1000 + SLACK_MS));
      dirty.clear();
      const done = waiting;
      waiting = [];
      void batch.exec().finally(() => done.forEach((r) => r()));
    }, 1000).unref();
  }
}
