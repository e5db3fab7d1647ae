/**
 * One event queue per tab: register, then long-poll GET /events. The server's restart event
 * keeps the queue (polling just goes on); BAD_EVENT_QUEUE_ID registers again and refetches the
 * view; a lost network is shown and retried with capped, jittered backoff.
 */
import { ApiError, NetworkError, get, post } from './api';
import { store } from './store';
import type { ClientEvent, Register } from './types';

const CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  // Linkifiers as URL templates from feature level 176 (what the administration screen edits).
  linkifier_url_template: true,
};
/** Longer than the server's heartbeat (45-55 s): a poll silent this long died on the way. */
const POLL_TIMEOUT_MS = 90_000;

export let queueId: string | null = null;
let lastEventId = -1;
let running = false;
const reconnectHooks = new Set<() => void>();
const registerHooks = new Set<() => void>();
const eventHooks = new Set<(events: ClientEvent[]) => void>();

/** Called when polling works again after a failure (the outbox resends then). */
export const onReconnect = (fn: () => void) => reconnectHooks.add(fn);
/** Called after every (re-)register (the view refetches then). */
export const onRegister = (fn: () => void) => registerHooks.add(fn);
/** Called with each batch of events once the store applied them (notifications, settings). */
export const onEvents = (fn: (events: ClientEvent[]) => void) => eventHooks.add(fn);

export class SignedOut extends Error {}

let current: AbortController | null = null;
let kicked = false;
/** The network is back (the browser says so): stop waiting on the old poll or the backoff, poll now. */
export function kick(): void {
  kicked = true;
  current?.abort();
  wake?.();
}
let wake: (() => void) | null = null;
addEventListener('online', kick);

export async function register(): Promise<void> {
  let reg: Register;
  try {
    reg = await post<Register>('/register', { apply_markdown: true, client_gravatar: false, slim_presence: false, include_subscribers: false, client_capabilities: CAPABILITIES });
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) throw new SignedOut();
    throw e;
  }
  queueId = reg.queue_id;
  lastEventId = reg.last_event_id;
  store.setRegister(reg);
  for (const fn of registerHooks) fn();
}

const sleep = (ms: number) => new Promise<void>((r) => {
  const timer = setTimeout(r, ms);
  wake = () => {
    clearTimeout(timer);
    r();
  };
});
export const backoffMs = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)) * (0.75 + Math.random() * 0.5);

/** Polls until the page goes away. The first register happened before (main.tsx). */
export async function poll(): Promise<void> {
  if (running) return;
  running = true;
  let failures = 0;
  for (;;) {
    try {
      if (queueId === null) await register();
      const ctl = new AbortController();
      current = ctl;
      kicked = false;
      const timer = setTimeout(() => ctl.abort(), POLL_TIMEOUT_MS);
      let res: { events: Array<ClientEvent & { id: number }> };
      try {
        // After a failure the first poll does not wait: it collects what the queue holds, so the
        // outbox knows what arrived before it sends anything again.
        const catchUp = store.conn !== 'live';
        res = await get('/events', { queue_id: queueId, last_event_id: lastEventId, dont_block: catchUp || undefined }, { signal: ctl.signal });
      } finally {
        clearTimeout(timer);
      }
      const wasDown = store.conn !== 'live';
      if (store.conn !== 'live') {
        store.conn = 'live';
        store.changed();
      }
      failures = 0;
      for (const e of res.events) lastEventId = Math.max(lastEventId, e.id);
      const real = res.events.filter((e) => e.type !== 'heartbeat');
      if (real.length) {
        store.apply(real);
        for (const fn of eventHooks) fn(real);
      }
      if (wasDown) for (const fn of reconnectHooks) fn();
    } catch (e) {
      if (e instanceof SignedOut || (e instanceof ApiError && e.status === 401)) {
        store.signedOut = true;
        store.changed();
        running = false;
        return;
      }
      if (e instanceof ApiError && e.code === 'BAD_EVENT_QUEUE_ID') {
        queueId = null;
        continue;
      }
      if (kicked) {
        kicked = false;
        continue;
      }
      // Network loss, a server restarting (5xx / no answer) or a poll that timed out.
      const networkish = e instanceof NetworkError || (e as Error).name === 'AbortError';
      failures++;
      if (store.conn !== 'offline' && (networkish || failures > 1)) {
        store.conn = 'offline';
        store.changed();
      }
      await sleep(backoffMs(failures - 1));
      wake = null;
    }
  }
}
