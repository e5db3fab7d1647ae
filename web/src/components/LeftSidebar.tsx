import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { useStore } from '../hooks';
import type { Narrow } from '../narrow';
import { narrowToHash } from '../narrow';
import { mentionCount, pmCount, streamCount, topicCount, totalCount, unreadTopics } from '../unread';
import { showNarrow } from '../view';
import type { Stream } from '../types';
import { t } from '../i18n';
import { listDrafts } from '../drafts';
import { openView, special, type SpecialView as SpecialViewName } from '../special-view';

const Count = ({ n }: { n: number }) => (n > 0 ? <span class="count" aria-label={t('{n} unread', { n })}>{n}</span> : null);

function NavLink({ narrow, label, count, current, className }: { narrow: Narrow; label: string; count?: number; current: boolean; className?: string }) {
  const s = useStore().state!;
  return (
    <a
      href={narrowToHash(narrow, s)}
      class={`nav-link ${className ?? ''} ${current ? 'current' : ''}`}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        e.preventDefault();
        void showNarrow(narrow);
      }}
    >
      <span class="label">{label}</span>
      <Count n={count ?? 0} />
    </a>
  );
}

/** A view that is not a message list (Inbox, Recent conversations, Drafts). */
function ViewLink({ view, label, count, plain }: { view: SpecialViewName; label: string; count?: number; plain?: boolean }) {
  const current = special.view === view;
  return (
    <a href={`#${view}`} class={`nav-link ${current ? 'current' : ''}`} aria-current={current ? 'page' : undefined}
      onClick={(e) => { e.preventDefault(); openView(view); }}>
      <span class="label">{label}</span>
      {plain ? (count ? <span class="count plain" aria-label={t('{n} drafts', { n: count })}>{count}</span> : null) : <Count n={count ?? 0} />}
    </a>
  );
}

/** The selected stream's topics: GET /users/me/{id}/topics, plus any live or unread ones. */
function Topics({ stream }: { stream: Stream }) {
  const store = useStore();
  const s = store.state!;
  const [fetched, setFetched] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    get<{ topics: Array<{ name: string; max_id: number }> }>(`/users/me/${stream.stream_id}/topics`).then((r) => live && setFetched(r.topics.map((t) => t.name)), () => {});
    return () => {
      live = false;
    };
  }, [stream.stream_id]);
  const seen = new Map<string, string>();
  for (const t of [...(store.liveTopics.get(stream.stream_id) ?? []), ...unreadTopics(s, stream.stream_id), ...fetched]) if (!seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
  const topic = store.list.narrow.find((t) => t.operator === 'topic')?.operand.toLowerCase();
  const topics = [...seen.values()].slice(0, 30);
  return (
    <ul class="topics">
      {topics.map((t) => (
        <li key={t}>
          <NavLink narrow={[{ operator: 'stream', operand: stream.name }, { operator: 'topic', operand: t }]} label={t} count={topicCount(s, stream.stream_id, t)} current={topic === t.toLowerCase()} />
        </li>
      ))}
    </ul>
  );
}

export function LeftSidebar({ onNewStream }: { onNewStream: () => void }) {
  const store = useStore();
  const s = store.state!;
  const narrow = store.list.narrow;
  const only = narrow.length === 1 ? narrow[0]! : undefined;
  const selectedStream = narrow.find((t) => t.operator === 'stream')?.operand.toLowerCase();
  const subs = [...(s.reg.subscriptions ?? [])] as Stream[];
  const pms = (s.reg.recent_private_conversations ?? []) as Array<{ user_ids: number[] }>;
  const pmWith = narrow.length === 1 && only?.operator === 'pm-with' ? only.operand : undefined;
  return (
    <nav class="left-sidebar" id="left-panel" aria-label={t('Views, streams and conversations')}>
      <ul class="views">
        <li><ViewLink view="inbox" label={t('Inbox')} count={totalCount(s)} /></li>
        <li><ViewLink view="recent" label={t('Recent conversations')} /></li>
        <li><NavLink narrow={[]} label={t('All messages')} count={totalCount(s)} current={narrow.length === 0 && special.view === null} /></li>
        <li><NavLink narrow={[{ operator: 'is', operand: 'mentioned' }]} label={t('Mentions')} count={mentionCount(s)} current={special.view === null && only?.operator === 'is' && only.operand === 'mentioned'} /></li>
        <li><NavLink narrow={[{ operator: 'is', operand: 'starred' }]} label={t('Starred')} count={(s.reg.starred_messages ?? []).length} current={special.view === null && only?.operator === 'is' && only.operand === 'starred'} /></li>
        <li><ViewLink view="drafts" label={t('Drafts')} count={listDrafts(s).length} plain /></li>
      </ul>
      <h2 class="section">{t('Streams')}{' '}<button class="link-button" onClick={onNewStream} aria-label={t('Browse or create streams')}>+</button></h2>
      <ul class="streams">
        {subs.map((st) => {
          const muted = st.is_muted ?? st.in_home_view === false;
          const selected = selectedStream === st.name.toLowerCase();
          return (
            <li key={st.stream_id} class={muted ? 'muted' : ''}>
              <NavLink narrow={[{ operator: 'stream', operand: st.name }]} label={`${st.invite_only ? '🔒 ' : '# '}${st.name}`} count={streamCount(s, st.stream_id)} current={selected && narrow.length === 1} className="stream" />
              {selected && <Topics stream={st} />}
            </li>
          );
        })}
      </ul>
      <h2 class="section">{t('Private messages')}</h2>
      <ul class="pms">
        {pms.slice(0, 20).map((c) => {
          const ids = [...c.user_ids].sort((a, b) => a - b);
          const users = (ids.length ? ids : [s.me]).map((id) => s.usersById.get(id)).filter((u) => u !== undefined);
          if (users.length === 0) return null;
          const operand = users.map((u) => u.email).join(',');
          return (
            <li key={operand}>
              <NavLink narrow={[{ operator: 'pm-with', operand }]} label={users.map((u) => u.full_name).join(', ')} count={pmCount(s, ids)} current={pmWith === operand} />
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
