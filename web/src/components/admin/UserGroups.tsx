/**
 * User groups, as Zulip's "User groups" settings: the organization's groups with their member
 * counts, a form to create one (name, description, members), and for each its name and
 * description, members to add or remove, and deletion (DELETE before feature level 290,
 * deactivation from it). The `user_group` events keep register's list current.
 */
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t, tn } from '../../i18n';
import type { State } from '../../types';
import './admin2.css';
import { ConfirmButton } from './ConfirmButton';
import { humans, Notice, useRunner } from './common';

type Group = { id: number; name: string; description: string; members: number[]; is_system_group?: boolean; deactivated?: boolean };

const DEACTIVATION_LEVEL = 290;
const groupsOf = (s: State): Group[] => ((s.reg.realm_user_groups ?? []) as Group[])
  .filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => a.name.localeCompare(b.name));

function Editor({ g }: { g: Group }) {
  const s = useStore().state!;
  const [name, setName] = useState(g.name);
  const [description, setDescription] = useState(g.description);
  const [pick, setPick] = useState('');
  const [note, run] = useRunner();
  const level = s.reg.zulip_feature_level ?? 0;
  const people = humans(s, true);
  const outside = people.filter((u) => !g.members.includes(u.user_id));
  const chosen = outside.find((u) => String(u.user_id) === pick) ?? outside[0];
  const nameOf = (id: number) => s.usersById.get(id)?.full_name ?? t('Unknown user');
  const save = () => {
    const params: Record<string, unknown> = {};
    if (name.trim() !== g.name) params.name = name.trim();
    if (description !== g.description) params.description = description;
    if (Object.keys(params).length) void run(() => patch(`/user_groups/${g.id}`, params), t('Saved'));
  };
  const remove = () => {
    void run(() => (level >= DEACTIVATION_LEVEL ? post(`/user_groups/${g.id}/deactivate`) : del(`/user_groups/${g.id}`)), t('Done'));
  };
  const idp = `group-${g.id}`;
  return (
    <div class="admin-sections admin2-editor">
      <form class="admin-section" onSubmit={(e) => { e.preventDefault(); save(); }}>
        <div class="admin-field"><label for={`${idp}-name`}>{t('User group name')}</label><input id={`${idp}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for={`${idp}-desc`}>{t('User group description')}</label><textarea id={`${idp}-desc`} rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></div>
        <div class="row"><button type="submit" disabled={name.trim() === g.name && description === g.description}>{t('Save changes')}</button></div>
      </form>
      <h5 class="admin2-sub">{t('Members')}</h5>
      {g.members.length === 0 ? <p>{t('This group has no members.')}</p> : (
        <ul class="admin-list">
          {g.members.map((id) => (
            <li key={id}>
              <span class="admin-grow">{nameOf(id)}</span>
              <button aria-label={t('Remove {user} from {group}', { user: nameOf(id), group: g.name })}
                onClick={() => void run(() => post(`/user_groups/${g.id}/members`, { delete: [id] }), t('Saved'))}>{t('Remove')}</button>
            </li>
          ))}
        </ul>
      )}
      <form class="admin-inline" onSubmit={(e) => { e.preventDefault(); if (chosen) void run(() => post(`/user_groups/${g.id}/members`, { add: [chosen.user_id] }), t('Saved')); }}>
        <label for={`${idp}-add`}>{t('Add a member')}</label>
        <select id={`${idp}-add`} value={chosen ? String(chosen.user_id) : ''} onChange={(e) => setPick(e.currentTarget.value)}>
          {outside.map((u) => <option key={u.user_id} value={String(u.user_id)}>{u.full_name}</option>)}
        </select>
        <button type="submit" disabled={!chosen}>{t('Add')}</button>
      </form>
      <div class="row"><ConfirmButton label={level >= DEACTIVATION_LEVEL ? t('Deactivate group') : t('Delete group')}
        question={level >= DEACTIVATION_LEVEL ? t('Deactivate {name}?', { name: g.name }) : t('Delete {name}?', { name: g.name })} act={remove} /></div>
      <Notice note={note} />
    </div>
  );
}

export default function UserGroups() {
  const s = useStore().state!;
  const groups = groupsOf(s);
  const [open, setOpen] = useState<number | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [members, setMembers] = useState<number[]>([]);
  const [note, run] = useRunner();
  const create = async () => {
    if (await run(() => post('/user_groups/create', { name: name.trim(), description, members }), t('User group created.'))) {
      setName(''); setDescription(''); setMembers([]);
    }
  };
  return (
    <div class="admin-sections">
      <section class="admin-section" aria-labelledby="groups-h">
        <h3 id="groups-h">{t('User groups')}</h3>
        <p class="admin-hint">{t('User groups offer a flexible way to manage permissions and to mention several people at once.')}</p>
        {groups.length === 0 ? <p>{t('There are no user groups yet.')}</p> : (
          <ul class="admin-list admin-bots">
            {groups.map((g) => (
              <li key={g.id}>
                <div class="admin-inline">
                  <span class="admin-grow"><strong>{g.name}</strong>{g.description ? ` — ${g.description}` : ''}<br />
                    <span class="admin-hint">{tn('{n} member', '{n} members', g.members.length)}</span></span>
                  <button aria-expanded={open === g.id} aria-label={t('Edit {name}', { name: g.name })} onClick={() => setOpen(open === g.id ? null : g.id)}>{t('Edit')}</button>
                </div>
                {open === g.id && <Editor key={g.id} g={g} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <form class="admin-section" aria-labelledby="group-new-h" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3 id="group-new-h">{t('Create user group')}</h3>
        <div class="admin-field"><label for="group-new-name">{t('User group name')}</label><input id="group-new-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for="group-new-desc">{t('User group description')}</label><textarea id="group-new-desc" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></div>
        <fieldset class="admin2-people">
          <legend>{t('Members')}</legend>
          {humans(s, true).map((u) => (
            <label key={u.user_id} class="admin-check"><input type="checkbox" checked={members.includes(u.user_id)}
              onChange={(e) => setMembers(e.currentTarget.checked ? [...members, u.user_id] : members.filter((x) => x !== u.user_id))} /> {u.full_name}</label>
          ))}
        </fieldset>
        <div class="row"><button type="submit" disabled={name.trim() === ''}>{t('Create')}</button></div>
        <Notice note={note} />
      </form>
    </div>
  );
}
