import type { AppContext } from '../context.js';
import { transact } from './transaction.js';
import { nowSeconds } from '../lib/time.js';
import { LAST_ACTIVITY_DAYS_FOR_ACTIVE, RECENTLY_ACTIVE_LEVEL } from '../lib/stream-group-settings.js';
import { streams } from '../store/repos/streams.js';
import { streamAudienceIds } from '../reads/stream-audience.js';

const DAY_MS = 86_400_000;

/**
 * Zulip's daily update_stream_active_status_for_realm (level 323's is_recently_active): a
 * stream is recently active when created, or sent to, within the last 180 days. Changed
 * streams are stored and their audience told (stream update events, from level 323).
 * Answers how many changed.
 */
export async function refreshRecentlyActive(ctx: AppContext, now = nowSeconds()): Promise<number> {
  const since = now - LAST_ACTIVITY_DAYS_FOR_ACTIVE * 86_400;
  return transact(ctx, async (tx) => {
    const changes = await streams.listRecentlyActiveChanges(tx.db, since);
    for (const { stream, active } of changes) {
      await streams.update(tx.db, stream.id, { is_recently_active: active ? 1 : 0 });
      if (tx.featureLevel < RECENTLY_ACTIVE_LEVEL) continue;
      tx.notify({ type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_recently_active', value: active },
        await streamAudienceIds(tx.db, stream, tx.featureLevel), stream.realm_id);
    }
    return changes.length;
  });
}

/** Runs refreshRecentlyActive once a day (first an hour after start); stopped at shutdown. */
export function startRecentlyActiveRefresh(ctx: AppContext): void {
  const run = () => void refreshRecentlyActive(ctx).catch((err: unknown) => ctx.log.error({ err }, 'is_recently_active refresh failed'));
  const first = setTimeout(() => {
    run();
    const timer = setInterval(run, DAY_MS);
    timer.unref();
    ctx.shutdownHooks.push(async () => clearInterval(timer));
  }, DAY_MS / 24);
  first.unref();
  ctx.shutdownHooks.push(async () => clearTimeout(first));
}
