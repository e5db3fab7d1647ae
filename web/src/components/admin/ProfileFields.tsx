/**
 * Custom profile fields, as Zulip's "Custom profile fields" settings: the fields in their
 * order (moved up or down through PATCH /realm/profile_fields's `order`), a form to add one
 * of every type register's custom_profile_field_types offers (a list of options with its
 * options' editor, an external account with its kind and URL pattern), each field's edit and
 * deletion, and "Display in profile summary" from feature level 146. `custom_profile_fields`
 * events keep the list current.
 */
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import './admin2.css';
import { ConfirmButton } from './ConfirmButton';
import { Notice, useRunner } from './common';

type Field = { id: number; type: number; name: string; hint: string; field_data: string; order: number; display_in_profile_summary?: boolean };
type Draft = { type: number; name: string; hint: string; options: string[]; subtype: string; url_pattern: string; summary: boolean };

const SELECT = 3, EXTERNAL = 7;
const SUMMARY_LEVEL = 146;

const TYPE_NAMES = (): Record<number, string> => ({
  1: t('Short text'), 2: t('Long text'), 3: t('List of options'), 4: t('Date picker'), 5: t('Link'), 6: t('Person picker'), 7: t('External account'), 8: t('Pronouns'),
});
const SUBTYPES = (): Array<[string, string]> => [['github', 'GitHub'], ['twitter', 'Twitter'], ['custom', t('Custom')]];

function parseData(raw: string): Record<string, unknown> {
  try { return raw ? (JSON.parse(raw) as Record<string, unknown>) : {}; } catch { return {}; }
}

function draftOf(f: Field): Draft {
  const data = parseData(f.field_data);
  const options = f.type === SELECT ? Object.values(data as Record<string, { text: string; order: string }>).sort((a, b) => Number(a.order) - Number(b.order)).map((o) => o.text) : [];
  return { type: f.type, name: f.name, hint: f.hint, options, subtype: String(data.subtype ?? 'github'), url_pattern: String(data.url_pattern ?? ''), summary: f.display_in_profile_summary === true };
}

const EMPTY: Draft = { type: 1, name: '', hint: '', options: [''], subtype: 'github', url_pattern: '', summary: false };

/** The draft as POST/PATCH /realm/profile_fields take it. */
function paramsOf(d: Draft, level: number): Record<string, unknown> {
  const params: Record<string, unknown> = { name: d.name.trim(), hint: d.hint };
  if (d.type === SELECT) params.field_data = Object.fromEntries(d.options.map((s) => s.trim()).filter((s) => s !== '').map((text, i) => [String(i), { text, order: String(i) }]));
  if (d.type === EXTERNAL) params.field_data = d.subtype === 'custom' ? { subtype: 'custom', url_pattern: d.url_pattern } : { subtype: d.subtype };
  if (level >= SUMMARY_LEVEL) params.display_in_profile_summary = d.summary;
  return params;
}

function FieldForm({ idp, draft, set, creating, level }: { idp: string; draft: Draft; set: (d: Draft) => void; creating: boolean; level: number }) {
  const s = useStore().state!;
  const types = Object.values((s.reg.custom_profile_field_types ?? {}) as Record<string, { id: number; name: string }>).sort((a, b) => a.id - b.id);
  const names = TYPE_NAMES();
  const external = draft.type === EXTERNAL && draft.subtype !== 'custom';
  return (
    <>
      {creating && (
        <div class="admin-field"><label for={`${idp}-type`}>{t('Type')}</label>
          <select id={`${idp}-type`} value={String(draft.type)} onChange={(e) => set({ ...draft, type: Number(e.currentTarget.value) })}>
            {types.map((ty) => <option key={ty.id} value={String(ty.id)}>{names[ty.id] ?? ty.name}</option>)}
          </select></div>
      )}
      {draft.type === EXTERNAL && (
        <div class="admin-field"><label for={`${idp}-subtype`}>{t('External account type')}</label>
          <select id={`${idp}-subtype`} value={draft.subtype} disabled={!creating} onChange={(e) => set({ ...draft, subtype: e.currentTarget.value })}>
            {SUBTYPES().map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select></div>
      )}
      {draft.type === EXTERNAL && draft.subtype === 'custom' && (
        <div class="admin-field"><label for={`${idp}-pattern`}>{t('URL pattern')}</label>
          <input id={`${idp}-pattern`} value={draft.url_pattern} placeholder="https://example.com/%(username)s" onInput={(e) => set({ ...draft, url_pattern: e.currentTarget.value })} /></div>
      )}
      {!external && (
        <>
          <div class="admin-field"><label for={`${idp}-name`}>{t('Label')}</label><input id={`${idp}-name`} value={draft.name} onInput={(e) => set({ ...draft, name: e.currentTarget.value })} /></div>
          <div class="admin-field"><label for={`${idp}-hint`}>{t('Hint (up to 80 characters)')}</label><input id={`${idp}-hint`} maxLength={80} value={draft.hint} onInput={(e) => set({ ...draft, hint: e.currentTarget.value })} /></div>
        </>
      )}
      {draft.type === SELECT && (
        <fieldset class="admin2-options">
          <legend>{t('Field choices')}</legend>
          {draft.options.map((o, i) => (
            <div class="admin-inline" key={i}>
              <input aria-label={t('Choice {n}', { n: i + 1 })} value={o} onInput={(e) => set({ ...draft, options: draft.options.map((x, j) => (j === i ? e.currentTarget.value : x)) })} />
              <button type="button" aria-label={t('Remove choice {n}', { n: i + 1 })} onClick={() => set({ ...draft, options: draft.options.filter((_, j) => j !== i) })}>×</button>
            </div>
          ))}
          <div><button type="button" onClick={() => set({ ...draft, options: [...draft.options, ''] })}>{t('Add choice')}</button></div>
        </fieldset>
      )}
      {level >= SUMMARY_LEVEL && (
        <label class="admin-check"><input type="checkbox" checked={draft.summary} onChange={(e) => set({ ...draft, summary: e.currentTarget.checked })} /> {t('Display in profile summary')}</label>
      )}
    </>
  );
}

function Editor({ f, close }: { f: Field; close: () => void }) {
  const s = useStore().state!;
  const level = s.reg.zulip_feature_level ?? 0;
  const [draft, setDraft] = useState(() => draftOf(f));
  const [note, run] = useRunner();
  const save = async () => {
    const params = paramsOf(draft, level);
    if (draft.type === EXTERNAL && draft.subtype !== 'custom') { delete params.name; delete params.hint; }
    if (await run(() => patch(`/realm/profile_fields/${f.id}`, params), t('Saved'))) close();
  };
  return (
    <form class="admin-section admin2-editor" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <FieldForm idp={`pf-${f.id}`} draft={draft} set={setDraft} creating={false} level={level} />
      <div class="row"><button type="submit">{t('Save changes')}</button><button type="button" onClick={close}>{t('Cancel')}</button></div>
      <Notice note={note} />
    </form>
  );
}

export default function ProfileFields() {
  const s = useStore().state!;
  const level = s.reg.zulip_feature_level ?? 0;
  const fields = [...((s.reg.custom_profile_fields ?? []) as Field[])].sort((a, b) => a.order - b.order);
  const [open, setOpen] = useState<number | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [note, run] = useRunner();
  const names = TYPE_NAMES();
  const move = (i: number, by: number) => {
    const ids = fields.map((f) => f.id);
    const [x] = ids.splice(i, 1);
    ids.splice(i + by, 0, x!);
    void run(() => patch('/realm/profile_fields', { order: ids }), t('Saved'));
  };
  const create = async () => {
    const params: Record<string, unknown> = { ...paramsOf(draft, level), field_type: draft.type };
    if (draft.type === EXTERNAL && draft.subtype !== 'custom') { delete params.name; delete params.hint; }
    if (await run(() => post('/realm/profile_fields', params), t('Custom profile field added.'))) setDraft(EMPTY);
  };
  return (
    <div class="admin-sections">
      <section class="admin-section" aria-labelledby="pf-h">
        <h3 id="pf-h">{t('Custom profile fields')}</h3>
        <p class="admin-hint">{t('What information do you want users in your organization to share in their profiles?')}</p>
        {fields.length === 0 ? <p>{t('No custom profile fields configured.')}</p> : (
          <ul class="admin-list admin-bots">
            {fields.map((f, i) => (
              <li key={f.id}>
                <div class="admin-inline">
                  <span class="admin-grow"><strong>{f.name}</strong> <span class="admin-hint">({names[f.type] ?? f.type}){f.hint ? ` — ${f.hint}` : ''}</span>
                    {f.display_in_profile_summary && <><br /><span class="admin-hint">{t('Displayed in profile summary')}</span></>}</span>
                  <button disabled={i === 0} aria-label={t('Move {name} up', { name: f.name })} onClick={() => move(i, -1)}>↑</button>
                  <button disabled={i === fields.length - 1} aria-label={t('Move {name} down', { name: f.name })} onClick={() => move(i, 1)}>↓</button>
                  <button aria-expanded={open === f.id} aria-label={t('Edit {name}', { name: f.name })} onClick={() => setOpen(open === f.id ? null : f.id)}>{t('Edit')}</button>
                  <ConfirmButton label={t('Delete')} aria={t('Delete {name}', { name: f.name })} question={t('Delete {name}?', { name: f.name })}
                    act={() => void run(() => del(`/realm/profile_fields/${f.id}`), t('Deleted'))} />
                </div>
                {open === f.id && <Editor key={f.id} f={f} close={() => setOpen(null)} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <form class="admin-section" aria-labelledby="pf-new-h" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3 id="pf-new-h">{t('Add a new profile field')}</h3>
        <FieldForm idp="pf-new" draft={draft} set={setDraft} creating level={level} />
        <div class="row"><button type="submit">{t('Add')}</button></div>
        <Notice note={note} />
      </form>
    </div>
  );
}
