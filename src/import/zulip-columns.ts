/**
 * The one mapping between Parley's rows and Zulip's export rows (zerver/lib/export.py), in
 * both directions, so that `parley export` followed by `parley import zulip` gives back what
 * was exported. Export: `toZulip*` take Parley rows and answer Zulip rows (foreign keys under
 * Zulip's field names, ids as Parley has them). Import: `*FromZulip` take rows of an untrusted
 * export and answer Parley insert shapes; foreign ids go through `mapId` (the loader's
 * remapping), and each setting is kept only when it has its default's type (and range where
 * known), else it falls back to the default.
 */
import type { Insertable } from 'kysely';
import type { RealmRow, StreamRow, SubscriptionRow, UserGroupRow, UserRow } from '../store/rows.js';
import type { RealmTable, StreamTable, SubscriptionTable, UserGroupTable, UserTable } from '../store/schema.js';
import { REALM_SETTING_DEFAULTS, realmSettings } from '../lib/realm-settings.js';
import { USER_SETTING_DEFAULTS, userSettings } from '../lib/user-settings.js';
import { REALM_SETTING_RULES, type RealmSettingRule } from '../lib/realm-setting-rules.js';
import { SETTING_RULES, settingValueError, type CanonicalSettingName } from '../lib/settings-rules.js';
import { REALM_PERMISSION_SETTINGS } from '../lib/permission-settings.js';
import { storedGroupSetting } from '../lib/realm-group-settings.js';
import type { AnonymousGroup, GroupSettingValue } from '../lib/group-setting-value.js';
import { STREAM_GROUP_SETTING_NAMES } from '../lib/stream-group-settings.js';
import { BotType, Role, ROLE_VALUES } from '../lib/roles.js';
import { isTimezone } from '../lib/timezones.js';
import { ImportError, type Row } from './source.js';

/** What a foreign id names. */
export type IdKind = 'user' | 'stream' | 'group';
/** The loader's remapping of a source id to Parley's; undefined when the source has no such row. */
export type MapId = (kind: IdKind, sourceId: number) => number | undefined;
/**
 * A source group that is anonymous (a `zerver_usergroup` row with no `zerver_namedusergroup`,
 * as Zulip keeps anonymous group settings) as its direct members and subgroups, in source ids.
 */
export type AnonymousOf = (sourceGroupId: number) => AnonymousGroup | undefined;

type RealmPermissionName = keyof typeof REALM_PERMISSION_SETTINGS;
const REALM_PERMISSION_NAMES = Object.keys(REALM_PERMISSION_SETTINGS) as RealmPermissionName[];

/**
 * Parley keeps the announcement channels as `<x>_stream_id` with -1 for none; Zulip's realm
 * row has a nullable foreign key under another name.
 */
const REALM_STREAM_COLUMNS = {
  notifications_stream_id: 'new_stream_announcements_stream',
  signup_notifications_stream_id: 'signup_announcements_stream',
  zulip_update_announcements_stream_id: 'zulip_update_announcements_stream',
  moderation_request_channel_id: 'moderation_request_channel',
} as const;
type RealmStreamSetting = keyof typeof REALM_STREAM_COLUMNS;

/** Zulip's MessageEditHistoryVisibilityPolicyEnum: an integer in the database, a string in the API. */
const EDIT_HISTORY_POLICIES = ['all', 'moves', 'none'] as const;

// Zulip's `realm` rows date their creation as Unix seconds (a float); Parley keeps whole seconds.
const seconds = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined);
const bool01 = (v: unknown, fallback: number): number => (typeof v === 'boolean' ? Number(v) : v === 0 || v === 1 ? v : fallback);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length <= max ? v : undefined);

// ---------------------------------------------------------------- group-setting values

/** A group-setting value as an export writes it: a named group's id, or the anonymous group's ids. */
function groupValueToZulip(v: GroupSettingValue): number | AnonymousGroup {
  return typeof v === 'number' ? v : { direct_members: [...v.direct_members], direct_subgroups: [...v.direct_subgroups] };
}

/**
 * A group-setting value from an export: a group id (named, or anonymous per `anonymousOf`) or
 * Parley's own `{direct_members, direct_subgroups}`; ids that do not map are left out, and a
 * value naming no known group is undefined (the caller's default).
 */
export function groupValueFromZulip(v: unknown, mapId: MapId, anonymousOf?: AnonymousOf): GroupSettingValue | undefined {
  if (isInt(v)) {
    const anon = anonymousOf?.(v);
    if (anon) return groupValueFromZulip(anon, mapId);
    return mapId('group', v);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.direct_members) || !Array.isArray(o.direct_subgroups)) return undefined;
  const mapAll = (ids: unknown[], kind: IdKind): number[] => ids.filter(isInt).map((id) => mapId(kind, id)).filter((id): id is number => id !== undefined);
  return { direct_members: mapAll(o.direct_members, 'user'), direct_subgroups: mapAll(o.direct_subgroups, 'group') };
}

// ---------------------------------------------------------------- settings checks

function realmRuleAccepts(rule: RealmSettingRule, v: unknown): boolean {
  switch (rule.kind) {
    case 'bool': return typeof v === 'boolean';
    case 'intIn': return isInt(v) && rule.values.includes(v);
    case 'int': return isInt(v);
    case 'nonNegativeInt': return isInt(v) && v >= 0;
    case 'str': return typeof v === 'string' && v.length <= 1000;
    case 'timeLimit': return v === null || (isInt(v) && v > 0);
  }
}

/** Settings whose default is null, or that may be null besides their default. */
const NULLABLE_REALM = new Set<string>([
  'message_content_edit_limit_seconds', 'message_content_delete_limit_seconds', 'default_code_block_language', 'upload_quota_mib',
  'move_messages_within_stream_limit_seconds', 'move_messages_between_streams_limit_seconds', 'jitsi_server_url',
]);

/** Whether an imported value may stand for a realm setting: its rule when Parley has one, else its default's type. */
function realmSettingAccepts(name: keyof typeof REALM_SETTING_DEFAULTS, v: unknown): boolean {
  if (v === null) return NULLABLE_REALM.has(name);
  const rule = (REALM_SETTING_RULES as Partial<Record<string, RealmSettingRule>>)[name];
  if (rule && rule.kind !== 'timeLimit') return realmRuleAccepts(rule, v);
  switch (name) {
    case 'message_retention_days': return isInt(v) && (v === -1 || v > 0);
    case 'message_content_edit_limit_seconds':
    case 'message_content_delete_limit_seconds':
    case 'move_messages_within_stream_limit_seconds':
    case 'move_messages_between_streams_limit_seconds': return isInt(v) && v >= 0;
    case 'upload_quota_mib': return isInt(v) && v >= 0;
    case 'icon_source': return v === 'G' || v === 'U';
    case 'logo_source':
    case 'night_logo_source': return v === 'D' || v === 'U';
    case 'message_edit_history_visibility_policy': return (EDIT_HISTORY_POLICIES as readonly unknown[]).includes(v);
    case 'jitsi_server_url': return typeof v === 'string' && /^https?:\/\//.test(v) && v.length <= 200;
    default: {
      const d = REALM_SETTING_DEFAULTS[name];
      if (typeof d === 'number') return isInt(v);
      return typeof v === typeof d && (typeof v !== 'string' || v.length <= 1000);
    }
  }
}

/** Whether an imported value may stand for a personal setting (PATCH /settings' checks). */
export function userSettingAccepts(name: CanonicalSettingName, v: unknown): boolean {
  const rule = SETTING_RULES[name];
  const typed = rule.kind === 'bool' ? typeof v === 'boolean' : rule.kind === 'str' || rule.kind === 'strIn' ? typeof v === 'string' : isInt(v);
  if (!typed) return false;
  if (name === 'web_font_size_px' || name === 'web_line_height_percent') return (v as number) > 0 && (v as number) <= 1000;
  return settingValueError(name, v, Infinity) === null;
}

// ---------------------------------------------------------------- realm

/** `zerver_realm`'s row: the realm's columns and every setting under Zulip's column name. */
export function toZulipRealm(row: RealmRow, groupIdByName: ReadonlyMap<string, number>): Row {
  const settings = realmSettings(row.settings);
  const own = ownSettings(row.settings);
  const out: Row = {
    id: row.id, string_id: row.string_id, name: row.name, description: row.description,
    deactivated: row.deactivated === 1, date_created: row.date_created,
  };
  for (const name of Object.keys(REALM_SETTING_DEFAULTS) as Array<keyof typeof REALM_SETTING_DEFAULTS>) {
    if (name in REALM_STREAM_COLUMNS) {
      const id = settings[name] as number;
      out[REALM_STREAM_COLUMNS[name as RealmStreamSetting]] = id > 0 ? id : null;
    } else {
      out[name] = settings[name];
    }
  }
  for (const name of REALM_PERMISSION_NAMES) {
    const stored = storedGroupSetting(own, settings, name, REALM_PERMISSION_SETTINGS[name].default_group_name);
    out[name] = 'value' in stored ? groupValueToZulip(stored.value) : (groupIdByName.get(stored.group) ?? null);
  }
  return out;
}

/** `zerver_realmuserdefault`'s row: the organization's defaults for new users' settings. */
export function toZulipRealmUserDefault(row: RealmRow, id = 1): Row {
  const stored = (ownSettings(row.settings).user_settings_defaults ?? {}) as Record<string, unknown>;
  const { timezone: _perUser, ...defaults } = USER_SETTING_DEFAULTS;
  return { id, realm: row.id, ...defaults, ...(typeof stored === 'object' && stored !== null ? stored : {}) };
}

function ownSettings(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

export type RealmInsert = Omit<Insertable<RealmTable>, 'id'>;

/**
 * The realm row an import makes: name and description (string_id is the operator's), the
 * settings that pass their checks (only those differing from the defaults are stored), the
 * announcement channels and group settings remapped, and the new users' defaults from
 * `zerver_realmuserdefault` when given.
 */
export function realmFromZulip(row: Row, mapId: MapId, userDefault?: Row, anonymousOf?: AnonymousOf): RealmInsert {
  const name = text(row.name, 40);
  if (name === undefined || name.trim() === '') throw new ImportError('realm.json: zerver_realm has no valid name');
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(REALM_SETTING_DEFAULTS) as Array<keyof typeof REALM_SETTING_DEFAULTS>) {
    if (key in REALM_STREAM_COLUMNS) {
      const source = row[REALM_STREAM_COLUMNS[key as RealmStreamSetting]] ?? row[key];
      const id = isInt(source) && source > 0 ? mapId('stream', source) : undefined;
      if (id !== undefined) settings[key] = id;
      continue;
    }
    let v = row[key];
    if (key === 'message_edit_history_visibility_policy' && isInt(v)) v = EDIT_HISTORY_POLICIES[v - 1];
    if (v === undefined || !realmSettingAccepts(key, v)) continue;
    if (v !== REALM_SETTING_DEFAULTS[key]) settings[key] = v;
  }
  for (const key of REALM_PERMISSION_NAMES) {
    const v = groupValueFromZulip(row[key] ?? row[`${key}_id`], mapId, anonymousOf);
    if (v !== undefined) settings[key] = v;
  }
  if (userDefault) {
    const defaults = userSettingsFromZulip(userDefault);
    delete defaults.timezone;
    if (Object.keys(defaults).length > 0) settings.user_settings_defaults = defaults;
  }
  return {
    string_id: typeof row.string_id === 'string' ? row.string_id : '',
    name,
    description: text(row.description, 1000) ?? '',
    settings: JSON.stringify(settings),
    deactivated: 0,
    date_created: seconds(row.date_created) ?? Math.floor(Date.now() / 1000),
  };
}

// ---------------------------------------------------------------- users

/**
 * `zerver_userprofile`'s row, without the password and API key (Zulip's export leaves both
 * out): roles, bot fields, avatar, time zone and every personal setting under its column name.
 */
export function toZulipUser(row: UserRow, personalRecipientId: number | null): Row {
  const settings = userSettings(row.settings);
  const out: Row = {};
  for (const name of Object.keys(USER_SETTING_DEFAULTS)) out[name] = settings[name];
  return {
    ...out,
    id: row.id, realm: row.realm_id, email: row.email, delivery_email: row.delivery_email, full_name: row.full_name,
    role: row.role, is_active: row.is_active === 1, is_bot: row.is_bot === 1, bot_type: row.bot_type, bot_owner: row.bot_owner_id,
    is_billing_admin: row.is_billing_admin === 1, can_change_user_emails: row.can_change_user_emails === 1, is_mirror_dummy: false,
    timezone: row.timezone, date_joined: row.date_joined, avatar_source: row.avatar_source, avatar_version: row.avatar_version, avatar_hash: null,
    default_sending_stream: row.default_sending_stream_id, default_events_register_stream: row.default_events_register_stream_id,
    default_all_public_streams: row.default_all_public_streams === 1, recipient: personalRecipientId,
  };
}

/** The personal settings of a user (or realm default) row that pass their checks and differ from the defaults. */
export function userSettingsFromZulip(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(USER_SETTING_DEFAULTS) as CanonicalSettingName[]) {
    if (name === 'timezone') continue;
    const v = row[name];
    if (v === undefined || !userSettingAccepts(name, v)) continue;
    if (v !== USER_SETTING_DEFAULTS[name]) out[name] = v;
  }
  return out;
}

export type UserInsert = Omit<Insertable<UserTable>, 'id' | 'realm_id' | 'api_key'>;

/**
 * The users row an import makes, without realm and API key (the loader's): no password (the
 * person sets one), the role and bot type only when Zulip has them, bot owner and default
 * streams remapped. A row without a usable email or name fails the import.
 */
export function userFromZulip(row: Row, mapId: MapId): UserInsert {
  const email = text(row.email, 254);
  if (!email || !email.includes('@')) throw new ImportError(`realm.json: zerver_userprofile ${String(row.id)} has no valid email`);
  const deliveryEmail = text(row.delivery_email, 254) || email;
  const fullName = text(row.full_name, 100);
  if (fullName === undefined || fullName.trim() === '') throw new ImportError(`realm.json: zerver_userprofile ${String(row.id)} has no valid full_name`);
  const isBot = row.is_bot === true || row.is_bot === 1;
  const botType = isBot && isInt(row.bot_type) && (Object.values(BotType) as number[]).includes(row.bot_type) ? row.bot_type : isBot ? BotType.GENERIC : null;
  const owner = isBot && isInt(row.bot_owner) ? mapId('user', row.bot_owner) ?? null : null;
  const stream = (v: unknown): number | null => (isBot && isInt(v) ? mapId('stream', v) ?? null : null);
  const timezone = typeof row.timezone === 'string' && (row.timezone === '' || isTimezone(row.timezone)) ? row.timezone : '';
  return {
    email, email_lower: email.toLowerCase(), delivery_email: deliveryEmail, full_name: fullName,
    password_hash: null,
    role: isInt(row.role) && ROLE_VALUES.includes(row.role) ? row.role : Role.MEMBER,
    is_active: bool01(row.is_active, 1),
    is_bot: Number(isBot), bot_type: botType, bot_owner_id: owner,
    is_billing_admin: bool01(row.is_billing_admin, 0),
    can_change_user_emails: bool01(row.can_change_user_emails, 0),
    timezone,
    date_joined: seconds(row.date_joined) ?? Math.floor(Date.now() / 1000),
    avatar_source: row.avatar_source === 'U' ? 'U' : 'G',
    avatar_version: isInt(row.avatar_version) && row.avatar_version >= 0 ? row.avatar_version : 1,
    settings: JSON.stringify(userSettingsFromZulip(row)),
    default_sending_stream_id: stream(row.default_sending_stream),
    default_events_register_stream_id: stream(row.default_events_register_stream),
    default_all_public_streams: isBot ? bool01(row.default_all_public_streams, 0) : 0,
  };
}

// ---------------------------------------------------------------- streams and subscriptions

function storedGroupValue(textValue: string): GroupSettingValue | null {
  try {
    const v = JSON.parse(textValue) as unknown;
    if (isInt(v)) return v;
    if (typeof v === 'object' && v !== null && Array.isArray((v as AnonymousGroup).direct_members)) return v as AnonymousGroup;
  } catch { /* a corrupt value exports as no value: the importer's default */ }
  return null;
}

/** `zerver_stream`'s row. */
export function toZulipStream(row: StreamRow): Row {
  const out: Row = {
    id: row.id, realm: row.realm_id, name: row.name, description: row.description, rendered_description: row.rendered_description,
    invite_only: row.invite_only === 1, is_web_public: row.is_web_public === 1, history_public_to_subscribers: row.history_public_to_subscribers === 1,
    stream_post_policy: row.stream_post_policy, message_retention_days: row.message_retention_days, date_created: row.date_created,
    first_message_id: row.first_message_id, deactivated: row.deactivated === 1, recipient: row.recipient_id, email_token: row.email_token,
    creator: row.creator_id, is_recently_active: row.is_recently_active === 1,
  };
  for (const name of STREAM_GROUP_SETTING_NAMES) {
    const v = storedGroupValue(row[name]);
    out[name] = v === null ? null : groupValueToZulip(v);
  }
  return out;
}

type StreamGroupSetting = (typeof STREAM_GROUP_SETTING_NAMES)[number];
/** Group settings are null where the source's value did not map: the loader gives them their default. */
export type StreamInsert = Omit<Insertable<StreamTable>, 'id' | 'realm_id' | 'recipient_id' | 'email_token' | 'first_message_id' | StreamGroupSetting>
  & { [K in StreamGroupSetting]: string | null };

/**
 * An archived stream's name_lower, as src/actions/stream-delete.ts frees the name for a new
 * stream: the loader sets it once it knows the stream's new id (streamFromZulip cannot).
 */
export const archivedNameLower = (id: number, name: string): string => `!deactivated:${id}:${name.toLowerCase()}`;

/**
 * The stream row an import makes, without realm, recipient and email token (the loader's);
 * an archived stream's name_lower is its plain one until the loader applies archivedNameLower;
 * `rendered_description` is left empty for the loader to render from the description. A group
 * setting that does not map is null: the loader gives it the setting's default.
 */
export function streamFromZulip(row: Row, mapId: MapId, anonymousOf?: AnonymousOf): StreamInsert {
  const name = text(row.name, 60);
  if (name === undefined || name.trim() === '') throw new ImportError(`realm.json: zerver_stream ${String(row.id)} has no valid name`);
  const retention = row.message_retention_days;
  const out: StreamInsert = {
    name, name_lower: name.toLowerCase(),
    description: text(row.description, 1024) ?? '', rendered_description: '',
    invite_only: bool01(row.invite_only, 0), is_web_public: bool01(row.is_web_public, 0),
    history_public_to_subscribers: bool01(row.history_public_to_subscribers, row.invite_only === true ? 0 : 1),
    stream_post_policy: isInt(row.stream_post_policy) && [1, 2, 3, 4].includes(row.stream_post_policy) ? row.stream_post_policy : 1,
    message_retention_days: isInt(retention) && (retention === -1 || retention > 0) ? retention : null,
    date_created: seconds(row.date_created) ?? Math.floor(Date.now() / 1000),
    deactivated: bool01(row.deactivated, 0),
    is_recently_active: bool01(row.is_recently_active, 1),
    creator_id: isInt(row.creator) ? mapId('user', row.creator) ?? null : null,
    can_remove_subscribers_group: null, can_administer_channel_group: null, can_send_message_group: null,
    can_add_subscribers_group: null, can_subscribe_group: null,
  };
  for (const key of STREAM_GROUP_SETTING_NAMES) {
    const v = groupValueFromZulip(row[key] ?? row[`${key}_id`], mapId, anonymousOf);
    out[key] = v === undefined ? null : JSON.stringify(v);
  }
  return out;
}

/** `zerver_subscription`'s row of a stream subscription (`recipient`: the stream's recipient). */
export function toZulipSubscription(row: SubscriptionRow, recipientId: number, userActive: boolean): Row {
  const flag = (v: number | null): boolean | null => (v === null ? null : v === 1);
  return {
    id: row.id, user_profile: row.user_id, recipient: recipientId, active: row.active === 1, is_user_active: userActive,
    is_muted: row.is_muted === 1, color: row.color, pin_to_top: row.pin_to_top === 1,
    desktop_notifications: flag(row.desktop_notifications), audible_notifications: flag(row.audible_notifications),
    push_notifications: flag(row.push_notifications), email_notifications: flag(row.email_notifications),
    wildcard_mentions_notify: flag(row.wildcard_mentions_notify),
  };
}

export type SubscriptionInsert = Omit<Insertable<SubscriptionTable>, 'id' | 'user_id' | 'stream_id'>;

/** A stream subscription's columns (the loader maps `user_profile` and `recipient` to user and stream). */
export function subscriptionFromZulip(row: Row): SubscriptionInsert {
  const flag = (v: unknown): number | null => (typeof v === 'boolean' ? Number(v) : v === 0 || v === 1 ? v : null);
  const color = typeof row.color === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(row.color) ? row.color : '#c2c2c2';
  return {
    active: bool01(row.active, 1), is_muted: bool01(row.is_muted ?? row.in_home_view === false, 0), color, pin_to_top: bool01(row.pin_to_top, 0),
    desktop_notifications: flag(row.desktop_notifications), audible_notifications: flag(row.audible_notifications),
    push_notifications: flag(row.push_notifications), email_notifications: flag(row.email_notifications),
    wildcard_mentions_notify: flag(row.wildcard_mentions_notify),
  };
}

// ---------------------------------------------------------------- user groups

const USER_GROUP_SETTINGS = ['can_mention_group', 'can_manage_group', 'can_join_group', 'can_add_members_group', 'can_leave_group', 'can_remove_members_group'] as const;

/** A named group as Zulip keeps it since 9.0: the `zerver_usergroup` row and its `zerver_namedusergroup` row. */
export function toZulipUserGroup(row: UserGroupRow): { usergroup: Row; named: Row } {
  const named: Row = {
    usergroup_ptr: row.id, realm_for_sharding: row.realm_id, realm: row.realm_id, name: row.name, description: row.description,
    is_system_group: row.is_system_group === 1, deactivated: row.deactivated === 1, creator: row.creator_id, date_created: row.date_created,
  };
  const anon = row.can_mention_group_anon === null ? null : storedGroupValue(row.can_mention_group_anon);
  named.can_mention_group = anon === null ? row.can_mention_group_id : groupValueToZulip(anon);
  for (const name of USER_GROUP_SETTINGS.slice(1) as Array<Exclude<(typeof USER_GROUP_SETTINGS)[number], 'can_mention_group'>>) {
    const stored = row[name];
    const v = stored === null ? null : storedGroupValue(stored);
    named[name] = v === null ? null : groupValueToZulip(v);
  }
  return { usergroup: { id: row.id, realm: row.realm_id }, named };
}

export type UserGroupInsert = Omit<Insertable<UserGroupTable>, 'id' | 'realm_id'>;

/**
 * A named group from its `zerver_namedusergroup` row (or an older export's `zerver_usergroup`
 * row, which has the name itself). Group settings that do not map are null (the default).
 */
export function userGroupFromZulip(row: Row, mapId: MapId, anonymousOf?: AnonymousOf): UserGroupInsert {
  const name = text(row.name, 100);
  if (name === undefined || name.trim() === '') throw new ImportError(`realm.json: user group ${String(row.usergroup_ptr ?? row.id)} has no valid name`);
  const setting = (key: string): GroupSettingValue | undefined => groupValueFromZulip(row[key] ?? row[`${key}_id`], mapId, anonymousOf);
  const mention = setting('can_mention_group');
  const json = (v: GroupSettingValue | undefined): string | null => (v === undefined ? null : JSON.stringify(v));
  return {
    name, description: text(row.description, 1024) ?? '', is_system_group: bool01(row.is_system_group, 0),
    can_mention_group_id: typeof mention === 'number' ? mention : null,
    can_mention_group_anon: mention !== undefined && typeof mention !== 'number' ? JSON.stringify(mention) : null,
    can_manage_group: json(setting('can_manage_group')), can_join_group: json(setting('can_join_group')),
    can_add_members_group: json(setting('can_add_members_group')), can_leave_group: json(setting('can_leave_group')),
    can_remove_members_group: json(setting('can_remove_members_group')),
    deactivated: bool01(row.deactivated, 0),
    creator_id: isInt(row.creator) ? mapId('user', row.creator) ?? null : null,
    date_created: seconds(row.date_created) ?? null,
  };
}
