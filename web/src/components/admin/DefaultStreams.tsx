/**
 * Default streams: the streams every new user joins (GET/POST/DELETE /default_streams; the
 * `default_streams` event keeps register's list current for every administrator).
 */
import { useState } from 'preact/hooks';
import { del, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { allStreams, Notice, useRunner } from './common';

export default function DefaultStreams() {
  const s = useStore().state!;
  const raw = s.reg.realm_default_streams ?? [];
  const ids = new Set(raw.map((x) => (typeof x === 'number' ? x : x.stream_id)));
  const defaults = allStreams(s).filter((st) => ids.has(st.stream_id));
  const others = allStreams(s).filter((st) => !ids.has(st.stream_id));
  const [pick, setPick] = useState('');
  const [note, run] = useRunner();
  const chosen = others.find((st) => String(st.stream_id) === pick) ?? others[0];
  return (
    <div class="admin-sections">
      <section class="admin-section" aria-labelledby="default-streams-h">
        <h3 id="default-streams-h">{t('Default streams')}</h3>
        <p class="admin-hint">{t('Configure the default streams new users are subscribed to when joining your organization.')}</p>
        <form class="admin-inline" onSubmit={(e) => { e.preventDefault(); if (chosen) void run(() => post('/default_streams', { stream_id: chosen.stream_id }), t('#{name} is now a default stream.', { name: chosen.name })); }}>
          <label for="default-stream-pick">{t('Stream name')}</label>
          <select id="default-stream-pick" value={chosen ? String(chosen.stream_id) : ''} onChange={(e) => setPick(e.currentTarget.value)}>
            {others.map((st) => <option key={st.stream_id} value={String(st.stream_id)}>#{st.name}</option>)}
          </select>
          <button type="submit" disabled={!chosen}>{t('Add stream')}</button>
        </form>
        {defaults.length === 0 ? <p>{t('No default streams.')}</p> : (
          <ul class="admin-list">
            {defaults.map((st) => (
              <li key={st.stream_id}>
                <span class="admin-grow">#{st.name}</span>
                <button class="danger" aria-label={t('Remove #{name} from the default streams', { name: st.name })}
                  onClick={() => void run(() => del('/default_streams', { stream_id: st.stream_id }), t('#{name} is no longer a default stream.', { name: st.name }))}>{t('Remove')}</button>
              </li>
            ))}
          </ul>
        )}
        <Notice note={note} />
      </section>
    </div>
  );
}
