/**
 * Sending with local echo: a message shows at once (queue_id + local_id go with it) and the
 * server's message event, carrying local_message_id, replaces the echo. A send that found no
 * server waits for the event queue to come back and goes again only if its event never
 * arrived, so a message is never sent twice; one composed while offline waits likewise.
 */
import { ApiError, NetworkError, post } from './api';
import { backoffMs, kick, onReconnect, queueId } from './live';
import { store } from './store';
import type { Message } from './types';

export type Destination = { type: 'stream'; streamId: number; topic: string } | { type: 'private'; userIds: number[] };

type Pending = { echo: Message; params: Record<string, unknown>; waiting: boolean };
const pending = new Map<string, Pending>();
let seq = 0;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function send(to: Destination, content: string): void {
  const s = store.state!;
  const me = s.usersById.get(s.me)!;
  seq++;
  const localId = `${s.reg.max_message_id ?? 0}.${String(seq).padStart(2, '0')}`;
  const stream = to.type === 'stream' ? s.streamsById.get(to.streamId) : undefined;
  const echo: Message = {
    id: -seq,
    local_id: localId,
    type: to.type,
    sender_id: s.me,
    sender_full_name: me.full_name,
    sender_email: me.email,
    avatar_url: me.avatar_url,
    stream_id: to.type === 'stream' ? to.streamId : undefined,
    display_recipient: to.type === 'stream' ? (stream?.name ?? '') : [me, ...to.userIds.map((id) => s.usersById.get(id)!)].map((u) => ({ id: u.user_id, email: u.email, full_name: u.full_name })),
    subject: to.type === 'stream' ? to.topic : '',
    // Plain text until the server's rendering arrives with the event.
    content: `<p>${escapeHtml(content).replace(/\n/g, '<br>')}</p>`,
    timestamp: Math.floor(Date.now() / 1000),
    flags: ['read'],
    reactions: [],
  };
  const params = to.type === 'stream'
    ? { type: 'stream', to: JSON.stringify(to.streamId), topic: to.topic, content }
    : { type: 'private', to: JSON.stringify(to.userIds), content };
  const p: Pending = { echo, params, waiting: false };
  pending.set(localId, p);
  store.outbox = [...store.outbox, echo];
  store.changed();
  if (store.conn === 'offline') p.waiting = true;
  else void attempt(p);
}

async function attempt(p: Pending): Promise<void> {
  p.waiting = false;
  try {
    const r = await post<{ id: number }>('/messages', { ...p.params, queue_id: queueId ?? undefined, local_id: queueId ? p.echo.local_id : undefined });
    pending.delete(p.echo.local_id!);
    // The event usually came first; if the queue changed meanwhile it carries no local id.
    if (store.messages.has(r.id)) dropEcho(p.echo.local_id!);
    else confirmed.set(r.id, p.echo.local_id!);
  } catch (e) {
    if (e instanceof NetworkError) {
      // Sent again once the event queue answers (see onReconnect), and only if its event never came.
      p.waiting = true;
      if (store.conn === 'live') {
        store.conn = 'offline';
        store.changed();
      }
      // The event queue's poll may be parked on a connection that still works: try it soon.
      setTimeout(kick, backoffMs(0));
      return;
    }
    pending.delete(p.echo.local_id!);
    store.outbox = store.outbox.map((m) => (m.local_id === p.echo.local_id ? { ...m, failed: true, content: `${m.content}<p class="send-error">${escapeHtml(e instanceof ApiError ? e.message : String(e))}</p>` } : m));
    store.changed();
  }
}

/** Server ids whose echo waits for the message event. */
const confirmed = new Map<number, string>();

function dropEcho(localId: string): void {
  pending.delete(localId);
  store.outbox = store.outbox.filter((m) => m.local_id !== localId);
  store.changed();
}

/** Called by the store for every message event: the echo it confirms goes away. */
export function confirm(id: number, localId: string | undefined): void {
  const byId = confirmed.get(id);
  if (byId !== undefined) {
    confirmed.delete(id);
    dropEcho(byId);
  }
  if (localId !== undefined && pending.has(localId)) dropEcho(localId);
}

export function discard(localId: string): void {
  dropEcho(localId);
}

// Back online: the queue has delivered whatever it held, so an echo still pending was never sent.
onReconnect(() => {
  for (const p of pending.values()) if (p.waiting && store.outbox.some((m) => m.local_id === p.echo.local_id)) void attempt(p);
});
store.onConfirm = confirm;
