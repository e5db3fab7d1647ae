/**
 * Conversations for the Recent conversations view: one per stream topic and per private
 * conversation among the messages the app holds, newest activity first. Derived from
 * `store.messages` whenever the store changes, so live messages, moves and deletions follow.
 */
import type { Narrow } from '../../narrow';
import { pmPartners } from '../../narrow';
import { pmCount, topicCount } from '../../unread';
import type { Message, State, Stream } from '../../types';

export type Conversation = {
  key: string;
  kind: 'stream' | 'private';
  streamId?: number;
  topic?: string;
  /** Private conversations: everyone but the viewer, ascending (empty: with oneself). */
  others?: number[];
  lastId: number;
  lastTime: number;
  /** Senders, the latest first. */
  senders: number[];
  unread: number;
  participated: boolean;
  muted: boolean;
};

const streamMuted = (st: Stream | undefined) => st !== undefined && (st.is_muted ?? st.in_home_view === false);

export function conversations(messages: Iterable<Message>, s: State): Conversation[] {
  const byKey = new Map<string, Conversation & { all: Message[] }>();
  const mutedTopics = new Set((s.reg.muted_topics ?? []).map((m) => `${m[0]}\u0000${m[1].toLowerCase()}`));
  for (const m of messages) {
    if (m.local_id !== undefined && m.failed) continue;
    let key: string;
    let seed: Omit<Conversation, 'lastId' | 'lastTime' | 'senders' | 'unread' | 'participated' | 'key'>;
    if (m.type === 'stream') {
      if (m.stream_id === undefined) continue;
      key = `s:${m.stream_id}:${m.subject.toLowerCase()}`;
      const st = s.streamsById.get(m.stream_id);
      seed = { kind: 'stream', streamId: m.stream_id, topic: m.subject, muted: streamMuted(st) || mutedTopics.has(`${st?.name}\u0000${m.subject.toLowerCase()}`) };
    } else {
      const others = pmPartners(m, s.me).sort((a, b) => a - b);
      key = `p:${others.join(',')}`;
      seed = { kind: 'private', others, muted: false };
    }
    let c = byKey.get(key);
    if (!c) byKey.set(key, (c = { key, ...seed, lastId: 0, lastTime: 0, senders: [], unread: 0, participated: false, all: [] }));
    c.all.push(m);
    if (m.id > c.lastId) {
      c.lastId = m.id;
      c.lastTime = m.timestamp;
      // The topic's name as last written (a rename of its case follows).
      if (m.type === 'stream') c.topic = m.subject;
    }
    if (m.sender_id === s.me) c.participated = true;
  }
  const out: Conversation[] = [];
  for (const c of byKey.values()) {
    c.senders = [...new Set(c.all.sort((a, b) => b.id - a.id).map((m) => m.sender_id))];
    c.unread = c.kind === 'stream' ? topicCount(s, c.streamId!, c.topic!) : pmCount(s, c.others!);
    const { all: _all, ...rest } = c;
    out.push(rest);
  }
  return out.sort((a, b) => b.lastId - a.lastId);
}

/** The narrow a conversation opens. */
export function narrowOf(c: Conversation, s: State): Narrow {
  if (c.kind === 'stream') return [{ operator: 'stream', operand: s.streamsById.get(c.streamId!)?.name ?? String(c.streamId) }, { operator: 'topic', operand: c.topic! }];
  const ids = c.others!.length ? c.others! : [s.me];
  return [{ operator: 'pm-with', operand: ids.map((id) => s.usersById.get(id)?.email ?? '').join(',') }];
}

/** The names of people, by id, comma-separated. */
export function names(ids: number[], s: State): string {
  return ids.map((id) => s.usersById.get(id)?.full_name ?? '?').join(', ');
}

/** Arrow keys move between the elements of one list marked `data-row` (Zulip's up/down in these views). */
export function moveFocus(e: KeyboardEvent, container: HTMLElement | null): void {
  if (!container || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'j' && e.key !== 'k')) return;
  const rows = [...container.querySelectorAll<HTMLElement>('[data-row]')];
  const at = rows.indexOf(document.activeElement as HTMLElement);
  const step = e.key === 'ArrowDown' || e.key === 'j' ? 1 : -1;
  const next = rows[Math.max(0, Math.min(rows.length - 1, at < 0 ? 0 : at + step))];
  e.preventDefault();
  // The page's own shortcuts (j/k move the selected message) must not act as well.
  e.stopPropagation();
  next?.focus();
}
