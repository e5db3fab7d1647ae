import type { AppContext } from '../context.js';
import type { ParleyEvent } from '../events/types.js';
import { EPOCH_ROW_KINDS, onRowsWritten } from '../store/changes.js';
import { readCacheEpoch } from '../store/epoch.js';
import { cacheSignal, type CacheScope } from './signal.js';
import { cachesOf, releaseCaches } from './index.js';
import type { PresenceAnswerRow } from './presence.js';

/** How often a process looks for changes other processes made; the bound on how stale its caches can be. */
export const EPOCH_POLL_MS = 1000;
const CLUSTER_EPOCH_POLL_MS = 30_000;

// What each event says has changed, for caches that must hear of it from every node.
const SCOPES_OF_EVENT: Partial<Record<ParleyEvent['type'], CacheScope>> = {
  realm_user: 'users', realm_bot: 'users', stream: 'streams', subscription: 'subscriptions',
  alert_words: 'alert_words', message: 'messages', delete_message: 'messages', update_message: 'messages',
  reaction: 'messages', muted_users: 'muted_users', user_group: 'user_groups', user_status: 'user_status',
  // Linkifiers are the realm's: their cache, and every cached message's topic_links.
  realm_linkifiers: 'realms',
};

function messageIdsOf(e: ParleyEvent): number[] {
  const out: number[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'number') out.push(v);
  };
  const any: Record<string, unknown> = { ...e };
  add(any.message_id);
  if (Array.isArray(any.message_ids)) any.message_ids.forEach(add);
  return out;
}

/**
 * The three sources that retire cached values, in one place: this process's writes once
 * committed, events from the bus (every node's), and the store's epoch, polled once a
 * second, for writes made without events (the CLI, another node's, a hand-run statement).
 * A cluster's bus hooks in here.
 */
export function connectCacheSignal(ctx: AppContext, epochPollMs = EPOCH_POLL_MS): () => void {
  const { bus } = ctx;
  const stopWrites = onRowsWritten((kinds) => {
    cacheSignal.retire({ scopes: kinds });
    // The other nodes of a cluster retire the same at once, in the bus's order: before
    // they hear any event published after this write.
    if (bus.shared) bus.announce({ kind: 'retire', origin: bus.nodeId, scopes: [...kinds] });
  });
  const stopNotices = bus.onNotice((n) => {
    if (n.origin === bus.nodeId) return;
    if (n.kind === 'retire') cacheSignal.retire({ scopes: new Set(n.scopes as CacheScope[]) });
    else if (n.kind === 'presence') cachesOf(ctx.store.db).presence.patch(n.realmId, n.row, n.listed ?? true);
  });
  const stopBus = bus.subscribe(({ event }) => {
    const scope = SCOPES_OF_EVENT[event.type];
    if (!scope) return;
    // A new message changes no message already held: it moves the counter (max_message_id,
    // GET /users/me) without naming messages to drop.
    const named = scope === 'messages' && event.type !== 'message' ? { messageIds: messageIdsOf(event) } : {};
    cacheSignal.retire({ scopes: new Set([scope]), ...named });
  });
  // A cluster's nodes hear each other's writes on the bus at once. The epoch is one
  // process's way to hear the CLI; in a cluster (whose CLI runs join the bus) it remains
  // only a slow safety net for writes nobody announces (a hand-run statement).
  const stopEpoch = pollEpoch(ctx, bus.shared ? CLUSTER_EPOCH_POLL_MS : epochPollMs);
  return () => {
    stopEpoch();
    stopWrites();
    stopNotices();
    stopBus();
    releaseCaches(ctx.store.db);
  };
}

/**
 * A presence just committed: the cached organization's rows take it here and, in a
 * cluster, on every other node (a presence is reported a minute by every client, too
 * often to reload the whole organization's for each).
 */
export function presenceStored(ctx: AppContext, realmId: number, row: PresenceAnswerRow, listed = true): void {
  cachesOf(ctx.store.db).presence.patch(realmId, row, listed);
  if (ctx.bus.shared) ctx.bus.announce({ kind: 'presence', origin: ctx.bus.nodeId, realmId, row, listed });
}

/** Retires every row kind when the store's epoch moves (a write this process was not told of). */
function pollEpoch(ctx: AppContext, epochPollMs: number): () => void {
  let seen: number | undefined;
  let busy = false;
  const poll = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const value = await readCacheEpoch(ctx.store.db);
      if (seen !== undefined && value !== seen) cacheSignal.retire({ scopes: new Set(EPOCH_ROW_KINDS) });
      seen = value;
    } catch (err) {
      // A failed look (the store closing, a dropped connection) is retried at the next tick.
      ctx.log.warn({ err }, 'cache epoch poll failed');
    } finally {
      busy = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), epochPollMs);
  timer.unref();
  return () => clearInterval(timer);
}
