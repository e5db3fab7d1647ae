/** Our own typing notifications, with Zulip's web app timing: a start at most every 10 s, a stop after 5 s idle. */
import { post } from './api';

const START_EVERY_MS = 10_000;
const IDLE_STOP_MS = 5_000;

type Target = { type: 'stream'; streamId: number; topic: string } | { type: 'private'; userIds: number[] };
let current: { key: string; params: Record<string, unknown>; lastStart: number } | null = null;
let idle = 0;

const paramsOf = (t: Target) => (t.type === 'stream' ? { type: 'stream', to: [t.streamId], topic: t.topic } : { type: 'private', to: t.userIds });

/** A keystroke in the compose box towards `t` (null: no valid recipient yet). */
export function typed(t: Target | null): void {
  const key = t ? JSON.stringify(paramsOf(t)) : '';
  if (current && current.key !== key) stopTyping();
  if (!t) return;
  const now = Date.now();
  if (!current) current = { key, params: paramsOf(t), lastStart: 0 };
  if (now - current.lastStart > START_EVERY_MS) {
    current.lastStart = now;
    post('/typing', { ...current.params, op: 'start' }).catch(() => {});
  }
  clearTimeout(idle);
  idle = window.setTimeout(stopTyping, IDLE_STOP_MS);
}

export function stopTyping(): void {
  clearTimeout(idle);
  if (!current) return;
  post('/typing', { ...current.params, op: 'stop' }).catch(() => {});
  current = null;
}
