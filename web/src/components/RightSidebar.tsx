import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useStore } from '../hooks';
import { showNarrow } from '../view';
import type { RegisterState } from '../types';
import { Avatar } from './Avatar';
import { openCard, StatusEmoji } from '../people';
import { t } from '../i18n';

/** Zulip's presence rule: active within 140 s is active, otherwise idle within the same window, else offline. */
const OFFLINE_AFTER_S = 140;

export function presenceOf(p: NonNullable<RegisterState['presences']>[string] | undefined, now: number): 'active' | 'idle' | 'offline' {
  // The web app registers without slim_presence: legacy entries.
  const agg = p && 'aggregated' in p ? p.aggregated : undefined;
  if (!agg || now - agg.timestamp > OFFLINE_AFTER_S) return 'offline';
  return agg.status === 'active' ? 'active' : 'idle';
}

/** Rows rendered at first; more as the list's end scrolls into view (2,000 people: a few screens' worth at a time). */
const PAGE = 100;
const collator = new Intl.Collator(undefined, { sensitivity: 'base' });

export function RightSidebar() {
  const store = useStore();
  const s = store.state!;
  const now = (s.reg.server_timestamp ?? Date.now() / 1000) + (Date.now() / 1000 - (loadedAt ??= Date.now() / 1000));
  // Sorted by name once per change of the people (usersById is rebuilt on realm_user events), not on every render.
  const byName = useMemo(() => (s.reg.realm_users ?? []).filter((u) => !u.is_bot).sort((a, b) => collator.compare(a.full_name, b.full_name)), [s.usersById]);
  const [limit, setLimit] = useState(PAGE);
  const more = useRef<HTMLLIElement>(null);
  // Presence per render is a lookup per person; a stable partition keeps the name order.
  const groups: Record<'active' | 'idle' | 'offline', Array<{ u: (typeof byName)[number]; p: 'active' | 'idle' | 'offline' }>> = { active: [], idle: [], offline: [] };
  for (const u of byName) {
    const p = u.user_id === s.me ? 'active' as const : presenceOf(s.reg.presences?.[u.email], now);
    groups[p].push({ u, p });
  }
  const all = [...groups.active, ...groups.idle, ...groups.offline];
  const rows = all.slice(0, limit);
  useEffect(() => {
    const el = more.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setLimit((n) => n + PAGE * 2);
    }, { rootMargin: '400px' });
    io.observe(el);
    return () => io.disconnect();
  }, [rows.length < all.length, limit]);
  return (
    <aside class="right-sidebar" id="right-panel" aria-label={t('Users')}>
      <h2 class="section">{t('Users')}</h2>
      <ul class="users">
        {rows.map(({ u, p }) => (
          <li key={u.user_id} class="user-row">
            <a
              href="#"
              class="nav-link user"
              onClick={(e) => {
                e.preventDefault();
                void showNarrow([{ operator: 'pm-with', operand: u.email }]);
              }}
            >
              <Avatar url={u.avatar_url} name={u.full_name} userId={u.user_id} />
              <span class={`presence ${p}`} role="img" aria-label={p} />
              <span class="label">{u.full_name}<StatusEmoji userId={u.user_id} /></span>
            </a>
            <button class="card-button" aria-label={t('View profile of {name}', { name: u.full_name })} onClick={(e) => openCard(u.user_id, e.currentTarget)}>⋮</button>
          </li>
        ))}
        {rows.length < all.length && <li ref={more} class="users-more" aria-hidden="true" />}
      </ul>
    </aside>
  );
}
let loadedAt: number | undefined;
