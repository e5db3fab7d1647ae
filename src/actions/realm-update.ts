import { nowSeconds } from '../lib/time.js';
import { doUpdateFullMembers } from './full-members.js';
import type { AppContext } from '../context.js';
import { transact } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { badRequest, invalidStreamId, mustBeAdmin, mustBeOwner } from '../errors.js';
import { strOrInt } from '../lib/str-or-int.js';
import { isAdminRole, Role } from '../lib/roles.js';
import { presentEditLimit, realmSettings } from '../lib/realm-settings.js';
import { LANGUAGE_NAMES } from '../lib/languages.js';
import {
  GIPHY_RATING_IDS, MESSAGE_EDITING_SETTINGS, OWNER_ONLY_SETTINGS, REALM_SETTING_RULES, VIDEO_CHAT_PROVIDER_IDS, WILDCARD_STREAM_ADMINS, type RealmSettingName,
} from '../lib/realm-setting-rules.js';
import { eventNames, namesAtLevel, presentRealmSetting, STREAM_SETTINGS, type StreamSettingName } from '../lib/realm-setting-names.js';
import { isValidUrl } from '../lib/linkifier-rules.js';
import { accessStreamById } from '../access/stream.js';
import { renderMessage } from '../markdown/bounded.js';
import { renderContextFor } from '../reads/render-context.js';
import { SystemGroup } from '../lib/system-groups.js';
import { accessGroupSettingValue } from '../access/group-setting.js';
import { PRIVATE_MESSAGES_DISABLED, REPLACED_POLICY, botCreationPolicy, correspondingPolicy, groupOfReplacedPolicy } from '../lib/realm-group-settings.js';
import { EDIT_HISTORY_POLICIES, EDIT_HISTORY_POLICY_LEVEL, OWNER_ONLY_GROUP_SETTINGS } from '../lib/realm-policy-groups.js';
import {
  REALM_PERMISSION_SETTING_LEVELS, REALM_PERMISSION_SETTING_NAMES, realmPermissionConfig, type RealmPermissionSettingName,
} from '../lib/permission-settings.js';
import { realmGroupSettingValueOf, systemGroupIds } from '../access/realm-group-setting.js';
import { sameGroupSettingValue, type GroupSettingChange, type GroupSettingValue } from '../lib/group-setting-value.js';
import { previousSettingValueMismatched } from '../errors.js';

export interface RealmUpdateRequest {
  name?: string | undefined;
  description?: string | undefined;
  /** Decoded by REALM_SETTING_RULES. */
  settings: Partial<Record<RealmSettingName, unknown>>;
  /** An integer or a string (`unlimited`), as Zulip's check_string_or_int decodes them. */
  messageRetentionDays?: number | string | undefined;
  messageContentDeleteLimitSeconds?: number | string | undefined;
  messageContentEditLimitSeconds?: number | string | undefined;
  /** The announcement streams by their stored names (-1: none); PATCH /realm takes each under its old and new names. */
  streams?: Partial<Record<StreamSettingName, number | undefined>>;
  /** "default" (the server's) or a URL (level 212). */
  jitsiServerUrl?: string | undefined;
  stringId?: string | undefined;
  /** The realm permission settings (levels 209-367): a value, or from level 260 `{new, old}`. */
  groupSettings?: Partial<Record<RealmPermissionSettingName, GroupSettingChange | undefined>>;
}

// Zulip's JITSI_SERVER_URL_MAX_LENGTH.
const JITSI_SERVER_URL_MAX_LENGTH = 200;

/** Zulip's RequestVariableConversionError message. */
const badValue = (name: string, value: unknown) => badRequest(`Bad value for '${name}': ${String(value)}`);


/** Zulip's parse_message_retention_days / parse_message_content_delete_limit: a positive integer or a special string. */
function parseLimit(name: string, raw: number | string, special: Record<string, number | null>): number | null {
  if (typeof raw === 'string') {
    if (!(raw in special)) throw badValue(name, raw);
    return special[raw]!;
  }
  if (raw <= 0) throw badValue(name, raw);
  return raw;
}

/** Everything PATCH /realm would change, checked in Zulip's order before anything is written. */
async function checkRealmUpdate(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest): Promise<Record<string, unknown>> {
  if (!isAdminRole(user.role)) throw mustBeAdmin();
  const isOwner = user.role === Role.OWNER;
  const wanted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(req.settings)) {
    const rule = REALM_SETTING_RULES[name as RealmSettingName];
    if (rule.kind === 'intIn' && !rule.values.includes(value as never)) throw badRequest(`Invalid ${name}`);
    if (rule.kind === 'nonNegativeInt' && (value as number) < 0) throw badValue(name, value);
    if (rule.kind === 'timeLimit') {
      wanted[name] = parseLimit(name, strOrInt(name, value as string), { unlimited: null });
      continue;
    }
    // Feature level 133 removed the stream administrators option (4) of wildcard_mention_policy,
    // which Zulip migrated to administrators (5). A client of an older level may still send it:
    // from 133 it is stored as what it always meant, so that the answer and the event say 5.
    wanted[name] = name === 'wildcard_mention_policy' && value === WILDCARD_STREAM_ADMINS && ctx.config.featureLevel >= 133 ? 5 : value;
  }
  // Level 358: the edit history policy, by name; allow_edit_history, its older form, is kept equal to it.
  const historyPolicy = wanted.message_edit_history_visibility_policy;
  if (historyPolicy !== undefined) {
    if (!(EDIT_HISTORY_POLICIES as readonly unknown[]).includes(historyPolicy)) throw badRequest('Invalid message_edit_history_visibility_policy');
    wanted.allow_edit_history = historyPolicy !== 'none';
  } else if (wanted.allow_edit_history !== undefined) {
    wanted.message_edit_history_visibility_policy = wanted.allow_edit_history === true ? 'all' : 'none';
  }
  if (req.settings.default_language !== undefined && !LANGUAGE_NAMES.has(req.settings.default_language as string)) {
    throw badRequest(`Invalid language '${String(req.settings.default_language)}'`);
  }
  const video = req.settings.video_chat_provider;
  if (video !== undefined && !VIDEO_CHAT_PROVIDER_IDS.includes(video as number)) throw badRequest(`Invalid video_chat_provider ${String(video)}`);
  const giphy = req.settings.giphy_rating;
  if (giphy !== undefined && !GIPHY_RATING_IDS.includes(giphy as number)) throw badRequest(`Invalid giphy_rating ${String(giphy)}`);
  if (req.messageRetentionDays !== undefined) {
    if (!isOwner) throw mustBeOwner();
    // Zulip keeps "forever" as -1; `unlimited` names it from feature level 91.
    wanted.message_retention_days = parseLimit('message_retention_days', req.messageRetentionDays, { unlimited: -1 });
  }
  for (const name of Object.keys(req.settings)) if (OWNER_ONLY_SETTINGS.has(name) && !isOwner) throw mustBeOwner();
  // Zulip checks these with invite_required: owners only.
  for (const name of OWNER_ONLY_GROUP_SETTINGS) if (req.groupSettings?.[name] !== undefined && !isOwner) throw mustBeOwner();
  if (req.messageContentEditLimitSeconds !== undefined) {
    // Before level 138 no limit was 0; that request still means it.
    const raw = req.messageContentEditLimitSeconds;
    wanted.message_content_edit_limit_seconds = raw === 0 ? null : parseLimit('message_content_edit_limit_seconds', raw, { unlimited: null });
  }
  if (req.messageContentDeleteLimitSeconds !== undefined) {
    wanted.message_content_delete_limit_seconds = parseLimit('message_content_delete_limit_seconds', req.messageContentDeleteLimitSeconds, { unlimited: null });
  }
  // The API spells "no default language for code blocks" as an empty string.
  if (wanted.default_code_block_language === '') wanted.default_code_block_language = null;
  for (const key of STREAM_SETTINGS) {
    const id = req.streams?.[key];
    if (id === undefined) continue;
    if (id >= 0) {
      const { stream } = await accessStreamById(ctx.store.db, user, id);
      if (stream.deactivated === 1) throw invalidStreamId();
      // Zulip's do_set_realm_moderation_request_channel.
      if (key === 'moderation_request_channel_id' && stream.invite_only !== 1) throw badRequest('Moderation request channel must be private.');
    }
    wanted[key] = id < 0 ? -1 : id;
  }
  if (req.jitsiServerUrl !== undefined) {
    // Zulip's check_jitsi_url: "default", or a URL of at most 200 characters.
    const url = req.jitsiServerUrl;
    if (url !== 'default' && (url.length > JITSI_SERVER_URL_MAX_LENGTH || !isValidUrl(url))) throw badRequest('jitsi_server_url is not an allowed_type');
    wanted.jitsi_server_url = url === 'default' ? null : url;
  }
  if (req.stringId !== undefined) {
    if (!isOwner) throw mustBeOwner();
    // Zulip lets only demo organizations change their subdomain; Parley has none.
    throw badRequest('Must be a demo organization.');
  }
  return wanted;
}

/**
 * The realm permission settings that change (Zulip's update_realm): a stale `old` is refused,
 * a value equal to the current one skipped, the new one checked by access_user_group_for_setting
 * against the setting's config at this level. An old client's policy parameter
 * (create_web_public_stream_policy, delete_own_message_policy, ...; private_message_policy)
 * sets the group its value names, Zulip's migration mapping.
 */
async function checkGroupSettings(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest,
  ids: ReadonlyMap<string, number>): Promise<Map<RealmPermissionSettingName, GroupSettingValue>> {
  const out = new Map<RealmPermissionSettingName, GroupSettingValue>();
  const current = (name: RealmPermissionSettingName) => out.get(name) ?? realmGroupSettingValueOf(realm, name, ids);
  for (const name of REALM_PERMISSION_SETTING_NAMES) {
    const policy = REPLACED_POLICY[name]?.policy;
    const value = policy === undefined ? undefined : req.settings[policy];
    if (typeof value !== 'number') continue;
    const id = ids.get(groupOfReplacedPolicy(REPLACED_POLICY[name]!, value) ?? '');
    if (id !== undefined && !sameGroupSettingValue(id, current(name))) out.set(name, id);
  }
  const pm = req.settings.private_message_policy;
  if (pm !== undefined) {
    const id = ids.get(pm === PRIVATE_MESSAGES_DISABLED ? SystemGroup.NOBODY : SystemGroup.EVERYONE);
    if (id !== undefined && !sameGroupSettingValue(id, current('direct_message_permission_group'))) out.set('direct_message_permission_group', id);
  }
  for (const name of REALM_PERMISSION_SETTING_NAMES) {
    const change = req.groupSettings?.[name];
    if (change === undefined) continue;
    const now = realmGroupSettingValueOf(realm, name, ids);
    if (change.old !== undefined && !sameGroupSettingValue(change.old, now)) throw previousSettingValueMismatched();
    if (sameGroupSettingValue(change.new, now)) {
      out.delete(name);
      continue;
    }
    out.set(name, await accessGroupSettingValue(ctx.store.db, user, change.new, name, realmPermissionConfig(name, ctx.config.featureLevel)));
  }
  return out;
}

/**
 * PATCH /realm: changes what differs and answers Zulip's `data` (each changed setting's
 * value, "updated" for text). Events to every active user: a realm/update per changed
 * setting, the message-editing ones included (Zulip from level 150; Zulip 5 grouped those
 * in one realm/update_dict, which clients apply to the same state).
 */
export async function updateRealm(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest): Promise<Record<string, unknown>> {
  const wanted = await checkRealmUpdate(ctx, realm, user, req);
  const ids = await systemGroupIds(ctx.store.db, realm.id);
  const groupChanges = await checkGroupSettings(ctx, realm, user, req, ids);
  // The replaced policies follow their groups (Zulip's get_corresponding_policy_value_for_group_setting).
  const nameOf = new Map([...ids].map(([n, id]) => [id, n]));
  for (const [name, value] of groupChanges) {
    const replaced = REPLACED_POLICY[name];
    // A policy the client sent stands (wildcard_mention_policy's 4 below level 133).
    if (replaced && replaced.follows !== false && req.settings[replaced.policy] === undefined) {
      wanted[replaced.policy] = correspondingPolicy(replaced, typeof value === 'number' ? nameOf.get(value) : undefined);
    }
    if (name === 'direct_message_permission_group') wanted.private_message_policy = value === ids.get(SystemGroup.NOBODY) ? PRIVATE_MESSAGES_DISABLED : 1;
  }
  // Level 344: bot_creation_policy follows the two bot settings together.
  if ((groupChanges.has('can_create_bots_group') || groupChanges.has('can_create_write_only_bots_group')) && req.settings.bot_creation_policy === undefined) {
    const groupOf = (n: 'can_create_bots_group' | 'can_create_write_only_bots_group') => {
      const value = groupChanges.get(n) ?? realmGroupSettingValueOf(realm, n, ids);
      // A named or anonymous group counts as allowing the most (undefined), as Zulip's approximations do.
      return typeof value === 'number' ? nameOf.get(value) ?? undefined : undefined;
    };
    wanted.bot_creation_policy = botCreationPolicy(groupOf('can_create_bots_group'), groupOf('can_create_write_only_bots_group'));
  }
  // Rendered outside the transaction: GET /server_settings shows it as HTML.
  const renderedDescription = req.description === undefined ? undefined
    : (await renderMessage(req.description, await renderContextFor(ctx.store.db, realm, user, req.description))).html;
  return transact(ctx, async (tx) => {
    const current = (await realms.findById(tx.db, realm.id)) ?? realm;
    const settings = realmSettings(current.settings) as Record<string, unknown>;
    const changed = Object.entries(wanted).filter(([k, v]) => settings[k] !== v);
    const data: Record<string, unknown> = {};
    const events: Array<{ property: string; value: unknown }> = [];
    const patch: { name?: string; description?: string; settings?: string } = {};
    if (req.name !== undefined && req.name !== current.name) {
      patch.name = req.name;
      data.name = 'updated';
      events.push({ property: 'name', value: req.name });
    }
    const own = JSON.parse(current.settings || '{}') as Record<string, unknown>;
    if (req.description !== undefined && req.description !== current.description) {
      patch.description = req.description;
      own.rendered_description = renderedDescription;
      data.description = 'updated';
      events.push({ property: 'description', value: req.description });
    }
    for (const [k, v] of changed) own[k] = v;
    for (const [k, value] of groupChanges) own[k] = value;
    if (changed.length > 0 || groupChanges.size > 0 || patch.description !== undefined) patch.settings = JSON.stringify(own);
    if (Object.keys(patch).length === 0) return data;
    await realms.update(tx.db, realm.id, patch);

    const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
    const level = ctx.config.featureLevel;
    // A replaced policy is no longer named from the level that replaced it (Zulip removed it from PATCH and events).
    const gone = new Set(Object.values(REPLACED_POLICY).filter((p) => level >= p.eventsUntil).map((p) => p.policy as string));
    // Level 358: message_edit_history_visibility_policy from its level, answered by name;
    // allow_edit_history answered below it and announced at every level (register keeps it).
    const historyLevel = level >= EDIT_HISTORY_POLICY_LEVEL;
    for (const [k, v] of changed) {
      if (gone.has(k)) continue;
      if (k === 'message_edit_history_visibility_policy' && !historyLevel) continue;
      const value = presentRealmSetting(k, v, level);
      const answered = k !== 'message_edit_history_visibility_policy' && typeof value === 'string' ? 'updated' : value;
      if (!(k === 'allow_edit_history' && historyLevel)) for (const name of namesAtLevel(k, level)) data[name] = answered;
      for (const property of eventNames(k)) events.push({ property, value });
    }
    for (const e of events) tx.notify({ type: 'realm', op: 'update', property: e.property, value: e.value }, audience, realm.id);
    // As Zulip's do_set_realm_property: a new waiting period moves members in or out of role:fullmembers now.
    if (changed.some(([k]) => k === 'waiting_period_threshold')) await doUpdateFullMembers(tx, realm.id, nowSeconds());
    // Zulip's do_change_realm_permission_group_setting: one update_dict per setting, its API value,
    // from the setting's level. Below it a change by the group's own parameter is still announced
    // (a client without the setting has no key to update), one by an old policy parameter only
    // as that policy's realm/update, as before the setting existed.
    for (const [k, value] of groupChanges) {
      const known = level >= REALM_PERMISSION_SETTING_LEVELS[k];
      if (known) data[k] = value;
      if (!known && req.groupSettings?.[k] === undefined) continue;
      tx.notify({ type: 'realm', op: 'update_dict', property: 'default', data: { [k]: value } }, audience, realm.id);
    }
    // Before level 150 the answer named the whole message-editing trio whenever one of them changed.
    if (ctx.config.featureLevel < 150 && changed.some(([k]) => (MESSAGE_EDITING_SETTINGS as readonly string[]).includes(k))) {
      const after = { ...settings, ...own } as Record<string, unknown>;
      for (const k of MESSAGE_EDITING_SETTINGS) data[k] = k === 'message_content_edit_limit_seconds' ? presentEditLimit(after[k] as number | null, ctx.config.featureLevel) : after[k];
    }
    return data;
  });
}

