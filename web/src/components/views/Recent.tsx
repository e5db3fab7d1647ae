/**
 * Recent conversations (Zulip's recent view): each topic and private conversation with recent
 * messages, newest first, with its unread count, who wrote and when; filters for unread and
 * participated conversations and a search box. Opened with `t`, at #recent.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { get } from '../../api';
import { useStore } from '../../hooks';
import { dateFormat, relativeTime, t } from '../../i18n';
import { store } from '../../store';
import type { Message } from '../../types';
import { showNarrow } from '../../view';
import { conversations, moveFocus, names, narrowOf, type Conversation } from './conversations';
import './views.css';

/** Zulip's recent view starts from the newest messages the server has. */
const FETCH = 400;
let fetched = false;

function when(c: Conversation): string {
  const ms = c.lastTime * 1000;
  return Date.now() - ms < 7 * 86_400_000 ? relativeTime(ms) : dateFormat({ dateStyle: 'medium' }).format(ms);
}

export default function Recent() {
  const st = useStore();
  const s = st.state!;
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [participated, setParticipated] = useState(false);
  const [includeMuted, setIncludeMuted] = useState(false);
  const [q, setQ] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(!fetched);
  const list = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (fetched) return;
    get<{ messages: Message[] }>('/messages', { anchor: 'newest', num_before: FETCH, num_after: 0, narrow: [], apply_markdown: true, client_gravatar: false })
      .then((r) => {
        fetched = true;
        store.addMessages(r.messages);
        store.changed();
      }, (e) => setError((e as Error).message))
      .finally(() => setLoading(false));
  }, []);

  // Recomputed when the store changes (live messages, reads, moves), not on each keystroke elsewhere.
  const all = useMemo(() => conversations(st.messages.values(), s), [st.epoch, st.messages.size, s]);
  const needle = q.trim().toLowerCase();
  const shown = all.filter((c) => (!unreadOnly || c.unread > 0) && (!participated || c.participated) && (includeMuted || !c.muted)
    && (!needle || (c.kind === 'stream' ? `${s.streamsById.get(c.streamId!)?.name ?? ''} ${c.topic}` : names(c.others!, s)).toLowerCase().includes(needle)));

  return (
    <section class="special-view recent-view" aria-labelledby="recent-title">
      <h2 id="recent-title">{t('Recent conversations')}</h2>
      <div class="view-filters">
        <input type="search" aria-label={t('Filter conversations')} placeholder={t('Filter conversations')} value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        <label><input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} /> {t('Unread')}</label>
        <label><input type="checkbox" checked={participated} onChange={(e) => setParticipated(e.currentTarget.checked)} /> {t('Participated')}</label>
        <label><input type="checkbox" checked={includeMuted} onChange={(e) => setIncludeMuted(e.currentTarget.checked)} /> {t('Include muted')}</label>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {loading && shown.length === 0 && <p role="status">{t('Loading…')}</p>}
      {!loading && shown.length === 0 && <p class="view-empty">{t('No conversations match your filters.')}</p>}
      <ul class="conversation-list" ref={list} onKeyDown={(e) => moveFocus(e, list.current)}>
        {shown.map((c) => {
          const stream = c.kind === 'stream' ? s.streamsById.get(c.streamId!) : undefined;
          const where = c.kind === 'stream' ? `${stream?.invite_only ? '🔒' : '#'} ${stream?.name ?? ''}` : t('Private messages');
          const what = c.kind === 'stream' ? c.topic! : (c.others!.length ? names(c.others!, s) : t('You'));
          return (
            <li key={c.key} class={`conversation${c.unread ? ' has-unread' : ''}`}>
              <a href="#" data-row class="conversation-open" onClick={(e) => { e.preventDefault(); void showNarrow(narrowOf(c, s)); }}>
                <span class="conversation-where">{where}</span>
                <span class="conversation-what">{what}</span>
              </a>
              {c.unread > 0 && <span class="count" aria-label={t('{n} unread', { n: c.unread })}>{c.unread}</span>}
              <span class="conversation-who" title={names(c.senders, s)}>{names(c.senders.slice(0, 3), s)}{c.senders.length > 3 ? ` +${c.senders.length - 3}` : ''}</span>
              <time class="conversation-when" dateTime={new Date(c.lastTime * 1000).toISOString()}>{when(c)}</time>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
