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

export function RightSidebar() {
  const store = useStore();
  const s = store.state!;
  const now = (s.reg.server_timestamp ?? Date.now() / 1000) + (Date.now() / 1000 - (loadedAt ??= Date.now() / 1000));
  const users = (s.reg.realm_users ?? []).filter((u) => !u.is_bot);
  const rank = { active: 0, idle: 1, offline: 2 };
  const rows = users
    .map((u) => ({ u, p: u.user_id === s.me ? 'active' as const : presenceOf(s.reg.presences?.[u.email], now) }))
    .sort((a, b) => rank[a.p] - rank[b.p] || a.u.full_name.localeCompare(b.u.full_name));
  return (
    <aside class="right-sidebar" id="right-panel" aria-label="Users">
      <h2 class="section">Users</h2>
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
      </ul>
    </aside>
  );
}
let loadedAt: number | undefined;
