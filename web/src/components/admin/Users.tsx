/**
 * Users: the organization's people with their roles, a search box, the role changed in place
 * (PATCH /users/{id}), deactivate (DELETE /users/{id}, confirmed first) and reactivate
 * (POST /users/{id}/reactivate); the invitations screen is one button away. `realm_user`
 * events move people between the lists as any administrator acts.
 */
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import type { User } from '../../types';
import { amOwner, humans, Notice, ROLES, roleOf, useRunner } from './common';

const PAGE = 100;

export default function Users({ openInvites }: { openInvites: () => void }) {
  const s = useStore().state!;
  const [query, setQuery] = useState('');
  const [which, setWhich] = useState<'active' | 'deactivated'>('active');
  const [confirming, setConfirming] = useState<number | null>(null);
  // 2,000 people with a role menu each are 16,000 elements: a page of them, more on request.
  const [limit, setLimit] = useState(PAGE);
  const [note, run] = useRunner();
  const owner = amOwner(s);
  const q = query.trim().toLowerCase();
  const people = humans(s, which === 'active').filter((u) => !q || u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q));
  const setRole = (u: User, role: number) => void run(() => patch(`/users/${u.user_id}`, { role }), t('{name} is now: {role}.', { name: u.full_name, role: ROLES().find(([v]) => v === role)![1] }));
  return (
    <div class="admin-sections">
      <div class="admin-toolbar">
        <div class="admin-field">
          <label for="users-search">{t('Search users')}</label>
          <input id="users-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        <div class="admin-field">
          <label for="users-which">{t('Show')}</label>
          <select id="users-which" value={which} onChange={(e) => setWhich(e.currentTarget.value as typeof which)}>
            <option value="active">{t('Users')}</option>
            <option value="deactivated">{t('Deactivated users')}</option>
          </select>
        </div>
        <button type="button" onClick={openInvites}>{t('Invitations')}</button>
      </div>
      <Notice note={note} />
      {people.length === 0 ? <p>{t('No users match.')}</p> : (
        <ul class="admin-list admin-users">
          {people.slice(0, limit).map((u) => {
            const role = roleOf(u);
            const locked = role === 100 && !owner;
            return (
              <li key={u.user_id} data-user-id={u.user_id}>
                <span class="admin-grow"><strong>{u.full_name}</strong><br /><span class="admin-hint">{u.email}</span></span>
                {which === 'active' ? (
                  <>
                    <select aria-label={t('Role of {name}', { name: u.full_name })} value={String(role)} disabled={locked}
                      onChange={(e) => setRole(u, Number(e.currentTarget.value))}>
                      {ROLES().filter(([v]) => v !== 100 || owner || role === 100).map(([v, name]) => <option key={v} value={String(v)}>{name}</option>)}
                    </select>
                    {u.user_id === s.me ? null : confirming === u.user_id ? (
                      <span class="admin-inline" role="group" aria-label={t('Deactivate {name}?', { name: u.full_name })}>
                        <button class="danger" onClick={() => { setConfirming(null); void run(() => del(`/users/${u.user_id}`), t('{name} was deactivated.', { name: u.full_name })); }}>{t('Confirm')}</button>
                        <button onClick={() => setConfirming(null)}>{t('Cancel')}</button>
                      </span>
                    ) : (
                      <button class="danger" disabled={locked} aria-label={t('Deactivate {name}', { name: u.full_name })} onClick={() => setConfirming(u.user_id)}>{t('Deactivate')}</button>
                    )}
                  </>
                ) : (
                  <button aria-label={t('Reactivate {name}', { name: u.full_name })} onClick={() => void run(() => post(`/users/${u.user_id}/reactivate`), t('{name} was reactivated.', { name: u.full_name }))}>{t('Reactivate')}</button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {people.length > limit && (
        <p class="admin-more">
          {t('Showing {shown} of {total}; search to find someone.', { shown: limit, total: people.length })}{' '}
          <button type="button" onClick={() => setLimit((n) => n + PAGE * 5)}>{t('Show more')}</button>
        </p>
      )}
    </div>
  );
}
