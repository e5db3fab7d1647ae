/**
 * Linkifiers, as Zulip's "Linkifiers" settings: the organization's patterns in the order they
 * apply (moved up or down through PATCH /realm/linkifiers from feature level 202), the form to
 * add one, each one's edit and deletion. The URL is a `url_template` (RFC 6570) from feature
 * level 176 and a `url_format_string` (with %(name)s) before it; register's entries have
 * `url_template` or, before 176, `url_format`.
 * The `realm_linkifiers` events keep the list current.
 */
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import './admin2.css';
import { ConfirmButton } from './ConfirmButton';
import { Notice, useRunner } from './common';

type Linkifier = { id: number; pattern: string; url_template?: string; url_format?: string; url_format_string?: string };

const TEMPLATE_LEVEL = 176;
const REORDER_LEVEL = 202;

export default function Linkifiers() {
  const s = useStore().state!;
  const level = s.reg.zulip_feature_level ?? 0;
  const key = level >= TEMPLATE_LEVEL ? 'url_template' : 'url_format_string';
  const list = (s.reg.realm_linkifiers ?? []) as Linkifier[];
  const urlOf = (l: Linkifier) => l.url_template ?? l.url_format ?? l.url_format_string ?? '';
  const [pattern, setPattern] = useState('');
  const [url, setUrl] = useState('');
  const [editing, setEditing] = useState<{ id: number; pattern: string; url: string } | null>(null);
  const [note, run] = useRunner();
  const add = async () => {
    if (await run(() => post('/realm/filters', { pattern, [key]: url }), t('Linkifier added.'))) { setPattern(''); setUrl(''); }
  };
  const save = async () => {
    if (!editing) return;
    if (await run(() => patch(`/realm/filters/${editing.id}`, { pattern: editing.pattern, [key]: editing.url }), t('Saved'))) setEditing(null);
  };
  const move = (i: number, by: number) => {
    const ids = list.map((l) => l.id);
    const [x] = ids.splice(i, 1);
    ids.splice(i + by, 0, x!);
    void run(() => patch('/realm/linkifiers', { ordered_linkifier_ids: ids }), t('Saved'));
  };
  const urlLabel = level >= TEMPLATE_LEVEL ? t('URL template') : t('URL format string');
  const example = level >= TEMPLATE_LEVEL ? 'https://github.com/zulip/zulip/issues/{id}' : 'https://github.com/zulip/zulip/issues/%(id)s';
  return (
    <div class="admin-sections">
      <form class="admin-section" aria-labelledby="lk-new-h" onSubmit={(e) => { e.preventDefault(); void add(); }}>
        <h3 id="lk-new-h">{t('Add a new linkifier')}</h3>
        <p class="admin-hint">{t('Configure regular expression patterns that will be used to automatically transform any matching text in messages and topics into links.')}</p>
        <div class="admin-field"><label for="lk-pattern">{t('Pattern')}</label><input id="lk-pattern" value={pattern} placeholder="#(?P<id>[0-9]+)" onInput={(e) => setPattern(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for="lk-url">{urlLabel}</label><input id="lk-url" value={url} placeholder={example} onInput={(e) => setUrl(e.currentTarget.value)} /></div>
        <div class="row"><button type="submit" disabled={pattern === '' || url === ''}>{t('Add linkifier')}</button></div>
        <Notice note={note} />
      </form>
      <section class="admin-section" aria-labelledby="lk-h">
        <h3 id="lk-h">{t('Linkifiers')}</h3>
        {list.length === 0 ? <p>{t('There are no linkifiers yet.')}</p> : (
          <ul class="admin-list admin-bots">
            {list.map((l, i) => (
              <li key={l.id}>
                <div class="admin-inline">
                  <span class="admin-grow"><code class="admin-key">{l.pattern}</code><br /><code class="admin-key">{urlOf(l)}</code></span>
                  {level >= REORDER_LEVEL && <>
                    <button disabled={i === 0} aria-label={t('Move {name} up', { name: l.pattern })} onClick={() => move(i, -1)}>↑</button>
                    <button disabled={i === list.length - 1} aria-label={t('Move {name} down', { name: l.pattern })} onClick={() => move(i, 1)}>↓</button>
                  </>}
                  <button aria-expanded={editing?.id === l.id} aria-label={t('Edit {name}', { name: l.pattern })}
                    onClick={() => setEditing(editing?.id === l.id ? null : { id: l.id, pattern: l.pattern, url: urlOf(l) })}>{t('Edit')}</button>
                  <ConfirmButton label={t('Delete')} aria={t('Delete {name}', { name: l.pattern })} question={t('Delete {name}?', { name: l.pattern })}
                    act={() => void run(() => del(`/realm/filters/${l.id}`), t('Deleted'))} />
                </div>
                {editing?.id === l.id && (
                  <form class="admin-section admin2-editor" onSubmit={(e) => { e.preventDefault(); void save(); }}>
                    <div class="admin-field"><label for={`lk-${l.id}-pattern`}>{t('Pattern')}</label><input id={`lk-${l.id}-pattern`} value={editing.pattern} onInput={(e) => setEditing({ ...editing, pattern: e.currentTarget.value })} /></div>
                    <div class="admin-field"><label for={`lk-${l.id}-url`}>{urlLabel}</label><input id={`lk-${l.id}-url`} value={editing.url} onInput={(e) => setEditing({ ...editing, url: e.currentTarget.value })} /></div>
                    <div class="row"><button type="submit">{t('Save changes')}</button><button type="button" onClick={() => setEditing(null)}>{t('Cancel')}</button></div>
                  </form>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
