/** Events about people applied to register's users, bots, statuses, presences and groups. */
import type {
  CustomProfileFieldsEvent, PresenceEvent, ProfileFieldValueChange, RealmBotEvent, RealmUserEvent, RealmUserUpdatePerson, UserGroupEvent, UserStatusEvent,
} from '../kinds/user.js';
import type { WireProfileData, WireUserStatus } from '../../schemas/wire.js';
import type { WireUserGroup } from '../../presenters/user-group.js';
import type { RegisterState } from './state.js';

export function applyRealmUser(state: RegisterState, e: RealmUserEvent, viewerId: number): void {
  if (e.op === 'update' && e.person.avatar_source !== undefined && e.person.user_id === viewerId) applyOwnAvatar(state, e.person);
  if (!state.realm_users) return;
  const inactive = (state.realm_non_active_users ??= []);
  if (e.op === 'add') {
    // Reactivation arrives as an add: the person leaves the deactivated list.
    state.realm_non_active_users = inactive.filter((u) => u.user_id !== e.person.user_id);
    state.realm_users.push(e.person);
  }
  if (e.op === 'remove') {
    const i = state.realm_users.findIndex((u) => u.user_id === e.person.user_id);
    if (i >= 0) inactive.push({ ...state.realm_users.splice(i, 1)[0]!, is_active: false });
    // Register lists only active users' statuses.
    if (state.user_status) delete state.user_status[e.person.user_id];
  }
  if (e.op === 'update' && e.person.is_active !== undefined) {
    // Feature level 222: (de)activation is an update; the person moves between the lists.
    const [from, to] = e.person.is_active ? [inactive, state.realm_users] : [state.realm_users, inactive];
    const i = from.findIndex((u) => u.user_id === e.person.user_id);
    if (i >= 0) to.push({ ...from.splice(i, 1)[0]!, is_active: e.person.is_active });
    if (!e.person.is_active && state.user_status) delete state.user_status[e.person.user_id];
  }
  if (e.op === 'update') {
    // A changed address arrives as `new_email`, as in Zulip.
    // avatar_source and avatar_url_medium are register's own-user fields, in no user object.
    const { new_email: newEmail, custom_profile_field: field, avatar_source: _source, avatar_url_medium: _medium, ...fields } = e.person;
    for (const list of [state.realm_users, inactive]) {
      const u = list.find((x) => x.user_id === e.person.user_id);
      if (u) Object.assign(u, fields, newEmail !== undefined ? { email: newEmail } : {});
      if (u?.profile_data && field) applyProfileValue(u.profile_data, field);
    }
  }
}

/** Zulip's apply_event: one's own new avatar also updates register's avatar fields, when it has them. */
function applyOwnAvatar(state: RegisterState, person: RealmUserUpdatePerson): void {
  if (!('avatar_url' in state)) return;
  Object.assign(state, { avatar_source: person.avatar_source, avatar_url: person.avatar_url, avatar_url_medium: person.avatar_url_medium });
  if ('avatar_version' in state && person.avatar_version !== undefined) state.avatar_version = person.avatar_version;
}

/** A realm_user update's `custom_profile_field`: a null value clears it; rendered_value only for text fields. */
function applyProfileValue(data: WireProfileData, f: ProfileFieldValueChange): void {
  if (f.value === null) delete data[String(f.id)];
  else data[String(f.id)] = f.rendered_value === undefined ? { value: f.value } : { value: f.value, rendered_value: f.rendered_value };
}

export function applyRealmBot(state: RegisterState, e: RealmBotEvent): void {
  const bots = state.realm_bots;
  if (!bots) return;
  const id = e.bot.user_id;
  // A reactivated bot arrives as an add while still listed (inactive): it replaces that entry, as clients key bots by id.
  if (e.op === 'add') state.realm_bots = [...bots.filter((b) => b.user_id !== id), e.bot];
  if (e.op === 'update') Object.assign(bots.find((b) => b.user_id === id) ?? {}, e.bot);
  if (e.op === 'remove') Object.assign(bots.find((b) => b.user_id === id) ?? {}, { is_active: false });
  if (e.op === 'delete') state.realm_bots = bots.filter((b) => b.user_id !== id);
}

/**
 * A presence event (always per client) merged into register's `presences`, whose keying
 * (email, or user id with slim_presence) and format (legacy, or modern with slim_presence
 * from level 178) the entries held show; none held: by email, legacy (the web app's).
 */
export function applyPresence(state: RegisterState, e: PresenceEvent): void {
  const all = state.presences;
  if (!all) return;
  const [info] = Object.values(e.presence);
  if (!info) return;
  const first = Object.entries(all)[0];
  const key = first && !first[0].includes('@') ? String(e.user_id) : e.email;
  if (first && 'active_timestamp' in first[1]) {
    const held = all[key];
    const active = held && typeof held.active_timestamp === 'number' ? held.active_timestamp : 0;
    // Active: active and connected now. Idle: connected now, last active as held.
    all[key] = { active_timestamp: info.status === 'active' ? info.timestamp : active, idle_timestamp: info.timestamp };
    return;
  }
  all[key] = { ...e.presence, aggregated: { client: info.client, status: info.status, timestamp: info.timestamp } };
}

/** A user_status event merged into register's `user_status`: cleared fields leave, an empty status leaves entirely. */
export function applyUserStatus(state: RegisterState, e: UserStatusEvent): void {
  const all = state.user_status;
  if (!all) return;
  const key = String(e.user_id);
  const s: WireUserStatus = { ...all[key] };
  if ('away' in e) (e.away ? (s.away = true) : delete s.away);
  if ('status_text' in e) (e.status_text ? (s.status_text = e.status_text) : delete s.status_text);
  if ('emoji_name' in e) {
    if (e.emoji_name) Object.assign(s, { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type });
    else for (const f of ['emoji_name', 'emoji_code', 'reaction_type'] as const) delete s[f];
  }
  if (Object.keys(s).length > 0) all[key] = s;
  else delete all[key];
}

/** A user_group event applied to register's `realm_user_groups` (kept by id, members ascending). */
export function applyUserGroup(state: RegisterState, e: UserGroupEvent): void {
  const groups = state.realm_user_groups;
  if (!groups) return;
  if (e.op === 'add') {
    groups.push(e.group);
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  const i = groups.findIndex((g) => g.id === e.group_id);
  if (i < 0) return;
  const g: WireUserGroup = groups[i]!;
  if (e.op === 'remove') {
    groups.splice(i, 1);
    // A deleted group leaves the groups it was a subgroup of (the rows go with it).
    for (const other of groups) other.direct_subgroup_ids = other.direct_subgroup_ids.filter((id) => id !== e.group_id);
  }
  if (e.op === 'update') Object.assign(g, e.data);
  if (e.op === 'add_members') g.members = [...g.members, ...e.user_ids].sort((a, b) => a - b);
  if (e.op === 'remove_members') g.members = g.members.filter((id) => !e.user_ids.includes(id));
  if (e.op === 'add_subgroups') g.direct_subgroup_ids = [...g.direct_subgroup_ids, ...e.direct_subgroup_ids].sort((a, b) => a - b);
  if (e.op === 'remove_subgroups') g.direct_subgroup_ids = g.direct_subgroup_ids.filter((id) => !e.direct_subgroup_ids.includes(id));
}

export function applyProfileFields(state: RegisterState, e: CustomProfileFieldsEvent): void {
  if ('custom_profile_fields' in state) state.custom_profile_fields = e.fields;
  // A deleted field takes its values along; no realm_user event says so (as in Zulip).
  const kept = new Set(e.fields.map((f) => String(f.id)));
  for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
    for (const id of Object.keys(u.profile_data ?? {})) if (!kept.has(id)) delete u.profile_data![id];
  }
}
