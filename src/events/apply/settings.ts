/** Settings events (the user's and the organization's) and the user's own lists: drafts, alert words, mutes. */
import type {
  DraftsEvent, RealmUpdateDictEvent, RealmUpdateEvent, RealmUserSettingsDefaultsUpdateEvent, UpdateDisplaySettingsEvent,
  UpdateGlobalNotificationsEvent, UserSettingsUpdateEvent,
} from '../kinds/settings.js';
import type { RegisterState } from './state.js';

export function applyUserSettings(state: RegisterState, e: UserSettingsUpdateEvent): void {
  if (state.user_settings) state.user_settings[e.property] = e.value;
  // The server drops its copies when synchronisation is turned off; so does a client.
  if (e.property === 'enable_drafts_synchronization' && e.value === false && state.drafts) state.drafts = [];
}

/** The legacy forms: register holds these settings at its top level. */
export function applyLegacySetting(state: RegisterState, e: UpdateDisplaySettingsEvent | UpdateGlobalNotificationsEvent): void {
  const [name, value] = e.type === 'update_display_settings' ? [e.setting_name, e.setting] : [e.notification_name, e.setting];
  if (name in state) state[name] = value;
}

/** Register names each organization setting `realm_<name>`. */
export function applyRealm(state: RegisterState, e: RealmUpdateEvent | RealmUpdateDictEvent): void {
  if (e.op === 'update_dict') {
    for (const [k, v] of Object.entries(e.data)) if (`realm_${k}` in state) state[`realm_${k}`] = v;
    return;
  }
  // A renamed setting is announced under each of its names: a state has the one of its level.
  if (`realm_${e.property}` in state) state[`realm_${e.property}`] = e.value;
}

export function applyUserSettingsDefaults(state: RegisterState, e: RealmUserSettingsDefaultsUpdateEvent): void {
  if (state.realm_user_settings_defaults) state.realm_user_settings_defaults[e.property] = e.value;
}

export function applyDrafts(state: RegisterState, e: DraftsEvent): void {
  if (!state.drafts) return;
  if (e.op === 'add') state.drafts.push(...e.drafts);
  if (e.op === 'update') state.drafts = state.drafts.map((d) => (d.id === e.draft.id ? e.draft : d));
  if (e.op === 'remove') state.drafts = state.drafts.filter((d) => d.id !== e.draft_id);
  // Register's order: the most recently edited first, ties by id.
  state.drafts.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
}
