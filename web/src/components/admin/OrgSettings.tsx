/**
 * One group of the organization's settings (profile, settings or permissions), each section
 * saved on its own through PATCH /realm as Zulip's "Save changes" does. What is shown is
 * register's value (kept current by `realm` events, so another administrator's change
 * appears) unless this administrator has edited it and not saved yet.
 */
import { useState } from 'preact/hooks';
import { patch } from '../../api';
import { useStore } from '../../hooks';
import { t, tn } from '../../i18n';
import type { State } from '../../types';
import { allStreams, amOwner, Notice, useRunner } from './common';
import OrgIcon from './OrgIcon';
import { type Field, GROUPS, OWNER_ONLY, type Section, SUPERSEDED, SYSTEM_GROUPS } from './settings-fields';

/** Names the later feature levels gave a setting (register's key and PATCH's parameter alike). */
const RENAMED: Record<string, string> = {
  notifications_stream_id: 'new_stream_announcements_stream_id',
  signup_notifications_stream_id: 'signup_announcements_stream_id',
};

/** The parameter a field is sent as at this level, or null when register does not have it. */
function paramOf(reg: State['reg'], name: string): string | null {
  if (`realm_${name}` in reg) return name;
  const later = RENAMED[name];
  return later && `realm_${later}` in reg ? later : null;
}

const UNLIMITED = 'unlimited';

/** A time limit as the form holds it: "unlimited" or a number in the field's unit. */
function limitValue(raw: unknown, unit: 'minutes' | 'days'): string {
  if (raw === null || raw === undefined || raw === 0 || raw === -1) return UNLIMITED;
  return String(unit === 'minutes' ? Math.round(Number(raw) / 60) : Number(raw));
}

/** A group setting's value that is not one system group (some people, several groups): shown, not offered. */
const CUSTOM = 'custom';

function formValue(f: Field, raw: unknown): string | boolean {
  if (f.kind === 'bool') return raw === true;
  if (f.kind === 'group') return typeof raw === 'number' ? String(raw) : CUSTOM;
  if (f.kind === 'limit') return limitValue(raw, f.unit);
  if (f.kind === 'stream') return String(raw ?? -1);
  return raw === null || raw === undefined ? '' : String(raw);
}

/** The form's value as PATCH /realm takes it. */
function wireValue(f: Field, v: string | boolean): unknown {
  if (f.kind === 'bool' || typeof v === 'boolean') return v;
  if (f.kind === 'limit') return v === UNLIMITED ? UNLIMITED : f.unit === 'minutes' ? Number(v) * 60 : Number(v);
  if (f.kind === 'stream' || f.kind === 'number') return Number(v);
  if (f.kind === 'group') return { new: Number(v) };
  if (f.kind === 'select') return f.options().some(([o]) => typeof o === 'number' && String(o) === v) ? Number(v) : v;
  return v;
}

type GroupConfig = { allow_internet_group?: boolean; allow_everyone_group?: boolean; allow_nobody_group?: boolean; allow_owners_group?: boolean; allowed_system_groups?: string[] };

/** The system groups a setting accepts (register's server_supported_permission_settings), by Zulip's names. */
function groupOptions(s: State, name: string, value: string | boolean): Array<[string, string]> {
  const config = ((s.reg.server_supported_permission_settings as { realm?: Record<string, GroupConfig> } | undefined)?.realm?.[name]) ?? {};
  const groups = (s.reg.realm_user_groups ?? []) as Array<{ id: number; name: string; is_system_group?: boolean }>;
  const refused = (g: string) => (g === 'role:internet' && !config.allow_internet_group) || (g === 'role:everyone' && config.allow_everyone_group === false)
    || (g === 'role:nobody' && config.allow_nobody_group === false) || (g === 'role:owners' && config.allow_owners_group === false)
    || (config.allowed_system_groups !== undefined && config.allowed_system_groups.length > 0 && !config.allowed_system_groups.includes(g));
  const out: Array<[string, string]> = [];
  for (const [g, label] of SYSTEM_GROUPS()) {
    const found = groups.find((x) => x.name === g && x.is_system_group !== false);
    if (found && (!refused(g) || String(found.id) === value)) out.push([String(found.id), label]);
  }
  if (value === CUSTOM) out.push([CUSTOM, t('A custom group')]);
  return out;
}

function Control({ f, id, value, disabled, set }: { f: Field; id: string; value: string | boolean; disabled: boolean; set: (v: string | boolean) => void }) {
  const s = useStore().state!;
  if (f.kind === 'bool') {
    return <label class="admin-check"><input id={id} type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => set(e.currentTarget.checked)} /> {f.label}</label>;
  }
  let control;
  if (f.kind === 'textarea') control = <textarea id={id} rows={3} value={String(value)} disabled={disabled} onInput={(e) => set(e.currentTarget.value)} />;
  else if (f.kind === 'text') control = <input id={id} value={String(value)} disabled={disabled} onInput={(e) => set(e.currentTarget.value)} />;
  else if (f.kind === 'number') control = <span class="admin-inline"><input id={id} type="number" min={0} value={String(value)} disabled={disabled} onInput={(e) => set(e.currentTarget.value)} /> {f.suffix}</span>;
  else {
    let options: Array<[string, string]>;
    if (f.kind === 'select') options = f.options().map(([v, l]) => [String(v), l]);
    else if (f.kind === 'stream') options = [['-1', t('Disabled')], ...allStreams(s).map((st): [string, string] => [String(st.stream_id), `#${st.name}`])];
    else if (f.kind === 'group') options = groupOptions(s, f.name, value);
    else if (f.kind === 'limit') {
      const unitText = (n: number) => (f.unit === 'days' ? tn('{n} day', '{n} days', n) : n % 1440 === 0 ? tn('{n} day', '{n} days', n / 1440) : n % 60 === 0 ? tn('{n} hour', '{n} hours', n / 60) : tn('{n} minute', '{n} minutes', n));
      const values = [...new Set([...f.options, ...(value !== UNLIMITED && value !== '' ? [Number(value)] : [])])].sort((a, b) => a - b);
      options = [[UNLIMITED, f.unit === 'days' ? t('Retain forever') : t('Any time')], ...values.map((n): [string, string] => [String(n), unitText(n)])];
    } else options = [];
    if (!options.some(([v]) => v === value)) options.push([String(value), String(value)]);
    control = <select id={id} value={String(value)} disabled={disabled} onChange={(e) => set(e.currentTarget.value)}>{options.map(([v, l]) => <option key={v} value={v}>{l}</option>)}</select>;
  }
  return <div class="admin-field"><label for={id}>{f.label}</label>{control}</div>;
}

function SectionForm({ section, alone }: { section: Section; alone: boolean }) {
  const s = useStore().state!;
  const reg = s.reg;
  const [draft, setDraft] = useState<Record<string, string | boolean>>({});
  const [note, run] = useRunner();
  const owner = amOwner(s);
  const fields = section.fields
    .filter((f) => !(SUPERSEDED[f.name] && `realm_${SUPERSEDED[f.name]}` in reg))
    .map((f) => ({ f, param: paramOf(reg, f.name) })).filter((x): x is { f: Field; param: string } => x.param !== null);
  if (fields.length === 0) return null;
  const dirty = Object.keys(draft).length > 0;
  const save = async () => {
    const params: Record<string, unknown> = {};
    for (const { f, param } of fields) if (f.name in draft) params[param] = wireValue(f, draft[f.name]!);
    if (await run(() => patch('/realm', params), t('Saved'))) setDraft({});
  };
  return (
    <form class="admin-section" aria-labelledby={`org-h-${section.id}`} onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <h3 id={`org-h-${section.id}`} class={alone ? 'visually-hidden' : undefined}>{section.title}</h3>
      {fields.map(({ f, param }) => {
        const value = f.name in draft ? draft[f.name]! : formValue(f, reg[`realm_${param}`]);
        const locked = OWNER_ONLY.has(f.name) && !owner;
        return (
          <div key={f.name}>
            <Control f={f} id={`org-${f.name}`} value={value} disabled={locked} set={(v) => setDraft({ ...draft, [f.name]: v })} />
            {locked && <p class="admin-hint">{t('Only organization owners can change this setting.')}</p>}
          </div>
        );
      })}
      <div class="row">
        <button type="submit" disabled={!dirty}>{t('Save changes')}</button>
        {dirty && <button type="button" onClick={() => setDraft({})}>{t('Discard')}</button>}
      </div>
      <Notice note={note} />
    </form>
  );
}

export default function OrgSettings({ group }: { group: 'profile' | 'settings' | 'permissions' }) {
  const g = GROUPS().find((x) => x.id === group)!;
  return (
    <div class="admin-sections">
      {group === 'profile' && <OrgIcon />}
      {g.sections.map((sec) => <SectionForm key={sec.id} section={sec} alone={g.sections.length === 1} />)}
    </div>
  );
}
