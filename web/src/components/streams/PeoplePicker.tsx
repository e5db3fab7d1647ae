/** Picking people by name or email: the chosen ones (each removable) and the matches of what is typed. */
import { useState } from 'preact/hooks';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { usePeople } from './StreamSettings';

export function PeoplePicker({ label, chosen, onAdd, onRemove, showChosen = true }: {
  label: string; chosen: number[]; onAdd: (id: number) => void; onRemove?: (id: number) => void; showChosen?: boolean;
}) {
  const s = useStore().state!;
  const [query, setQuery] = useState('');
  const matches = usePeople(s, query, new Set(chosen));
  return (
    <div class="streams-picker">
      <label class="stack">{label}
        <input type="search" value={query} placeholder={t('Name or email')} autoComplete="off"
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); if (matches[0]) { onAdd(matches[0].user_id); setQuery(''); } } }} />
      </label>
      {matches.length > 0 && (
        <ul class="streams-matches" aria-label={t('Matching people')}>
          {matches.map((u) => (
            <li key={u.user_id}>
              <button type="button" onClick={() => { onAdd(u.user_id); setQuery(''); }} aria-label={t('Add {name}', { name: u.full_name })}>
                {u.full_name} <small>{u.email}</small>
              </button>
            </li>
          ))}
        </ul>
      )}
      {showChosen && (
        <ul class="streams-pills" aria-label={t('Chosen subscribers')}>
          {chosen.map((id) => {
            const u = s.usersById.get(id);
            const who = id === s.me ? t('{name} (you)', { name: u?.full_name ?? '' }) : u?.full_name ?? String(id);
            return (
              <li key={id}>
                {who}
                {onRemove && <button type="button" onClick={() => onRemove(id)} aria-label={t('Remove {name}', { name: u?.full_name ?? String(id) })}>×</button>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
