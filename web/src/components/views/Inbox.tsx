/**
 * Inbox (Zulip's inbox view): every conversation with unread messages, private ones first,
 * then by stream under headers that fold, each with its count and a button that marks it
 * read. Read off register's unread_msgs, so it follows every event. Opened with Shift+I, at #inbox.
 */
import { useRef, useState } from 'preact/hooks';
import { post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { store } from '../../store';
import type { State, Stream } from '../../types';
import { showNarrow } from '../../view';
import { moveFocus, names } from './conversations';
import './views.css';

type Row = { key: string; label: string; ids: number[]; open: () => void };
type Group = { key: string; title: string; rows: Row[] };

function groups(s: State): Group[] {
  const u = s.reg.unread_msgs;
  if (!u) return [];
  const emailsOf = (ids: number[]) => ids.map((id) => s.usersById.get(id)?.email ?? '').join(',');
  const pms: Row[] = [];
  for (const p of u.pms) {
    const other = (p as { other_user_id?: number }).other_user_id ?? p.sender_id;
    pms.push({ key: `p:${other}`, label: other === s.me ? t('You') : names([other], s), ids: p.unread_message_ids, open: () => void showNarrow([{ operator: 'pm-with', operand: emailsOf([other]) }]) });
  }
  for (const h of u.huddles) {
    const others = h.user_ids_string.split(',').map(Number).filter((id) => id !== s.me);
    pms.push({ key: `h:${h.user_ids_string}`, label: names(others, s), ids: h.unread_message_ids, open: () => void showNarrow([{ operator: 'pm-with', operand: emailsOf(others) }]) });
  }
  const mutedTopics = new Set((s.reg.muted_topics ?? []).map((m) => `${m[0]}\u0000${m[1].toLowerCase()}`));
  const byStream = new Map<number, Map<string, Row>>();
  for (const e of u.streams) {
    const st = s.streamsById.get(e.stream_id) as Stream | undefined;
    if (!st || (st.is_muted ?? st.in_home_view === false) || mutedTopics.has(`${st.name}\u0000${e.topic.toLowerCase()}`)) continue;
    let topics = byStream.get(e.stream_id);
    if (!topics) byStream.set(e.stream_id, (topics = new Map()));
    const key = e.topic.toLowerCase();
    const row = topics.get(key);
    if (row) row.ids = [...row.ids, ...e.unread_message_ids];
    else topics.set(key, { key: `s:${e.stream_id}:${key}`, label: e.topic, ids: e.unread_message_ids, open: () => void showNarrow([{ operator: 'stream', operand: st.name }, { operator: 'topic', operand: e.topic }]) });
  }
  const out: Group[] = [];
  if (pms.length) out.push({ key: 'pms', title: t('Private messages'), rows: pms.sort((a, b) => Math.max(...b.ids) - Math.max(...a.ids)) });
  const streams = [...byStream.entries()].map(([id, topics]) => ({ st: s.streamsById.get(id)!, topics: [...topics.values()] }))
    .sort((a, b) => a.st.name.localeCompare(b.st.name));
  for (const { st, topics } of streams) {
    out.push({ key: `s:${st.stream_id}`, title: `${st.invite_only ? '🔒' : '#'} ${st.name}`, rows: topics.sort((a, b) => Math.max(...b.ids) - Math.max(...a.ids)) });
  }
  return out;
}

async function markRead(ids: number[]): Promise<void> {
  try {
    await post('/messages/flags', { messages: JSON.stringify(ids), op: 'add', flag: 'read' });
  } catch (e) {
    store.flash = (e as Error).message;
    store.changed();
  }
}

export default function Inbox() {
  const st = useStore();
  const s = st.state!;
  const [folded, setFolded] = useState<Set<string>>(new Set());
  const list = useRef<HTMLDivElement>(null);
  const all = groups(s);
  const toggle = (key: string) => {
    const next = new Set(folded);
    if (!next.delete(key)) next.add(key);
    setFolded(next);
  };
  return (
    <section class="special-view inbox-view" aria-labelledby="inbox-title">
      <h2 id="inbox-title">{t('Inbox')}</h2>
      {all.length === 0 && <p class="view-empty">{t('There are no unread messages in your inbox.')}</p>}
      <div ref={list} onKeyDown={(e) => moveFocus(e, list.current)}>
        {all.map((g) => {
          const total = g.rows.reduce((n, r) => n + r.ids.length, 0);
          const open = !folded.has(g.key);
          return (
            <div key={g.key} class="inbox-group">
              <h3 class="inbox-header">
                <button data-row aria-expanded={open} onClick={() => toggle(g.key)}>
                  <span aria-hidden="true">{open ? '▾' : '▸'}</span> {g.title}
                  <span class="count" aria-label={t('{n} unread', { n: total })}>{total}</span>
                </button>
              </h3>
              {open && (
                <ul class="conversation-list">
                  {g.rows.map((r) => (
                    <li key={r.key} class="conversation has-unread">
                      <a href="#" data-row class="conversation-open" onClick={(e) => { e.preventDefault(); r.open(); }}>
                        <span class="conversation-what">{r.label}</span>
                      </a>
                      <span class="count" aria-label={t('{n} unread', { n: r.ids.length })}>{r.ids.length}</span>
                      <button class="mark-read" aria-label={t('Mark {name} as read', { name: r.label })} title={t('Mark as read')} onClick={() => void markRead(r.ids)}>✓</button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          );
        })}
      </div>
    </section>
  );
}
