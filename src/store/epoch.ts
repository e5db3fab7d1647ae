import type { AppContext } from '../context.js';
import { changedElsewhere } from './versions.js';

/** How often a process looks for changes other processes made; the bound on how stale its caches can be. */
export const EPOCH_POLL_MS = 1000;

/**
 * Watches the store's cache epoch (migration 012), which a trigger moves on every write to
 * users, realms, streams, subscriptions and alert words. When it moves, whoever moved it,
 * every cache keyed on versions.ts is retired. This process's own writes retire those
 * caches at once as well; the epoch is what brings in the CLI's and other nodes' writes.
 */
export function watchStoreEpoch(ctx: AppContext, intervalMs = EPOCH_POLL_MS): () => void {
  let seen: number | undefined;
  let busy = false;
  const poll = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const row = await ctx.store.db.selectFrom('cache_epoch').select('value').where('id', '=', 1).executeTakeFirst();
      const value = Number(row?.value ?? 0);
      if (seen !== undefined && value !== seen) changedElsewhere();
      seen = value;
    } catch (err) {
      // A failed look (the store closing, a dropped connection) is retried at the next tick.
      ctx.log.warn({ err }, 'cache epoch poll failed');
    } finally {
      busy = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
