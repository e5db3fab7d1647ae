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
import { accessUserGroupForSetting } from '../access/group-setting.js';
import { userGroups } from '../store/repos/user-groups.js';
import {
  POLICY_OF, PRIVATE_MESSAGES_DISABLED, REALM_GROUP_SETTING_LEVELS, REALM_GROUP_SETTING_NAMES, policyOfGroup, realmGroupSetting, type RealmGroupSettingName,
} from '../lib/realm-group-settings.js';
import { ID_STORED_REALM_GROUP_SETTINGS, REALM_PERMISSION_SETTINGS, type RealmPermissionSettingName } from '../lib/permission-settings.js';
import { realmGroupSettingId } from '../access/realm-group-setting.js';
import { REALM_PERMISSION_SETTING_LEVELS } from '../lib/permission-settings.js';
import {
  EDIT_HISTORY_POLICIES, OWNER_ONLY_GROUP_SETTINGS, POLICY_OF_GROUP_SETTING, REPLACED_POLICIES, answeredAtLevel, announcedAtLevel, type ReplacedPolicy,
} from '../lib/realm-policy-groups.js';

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
  /** Levels 264-270's group-setting values: a system group's id. */
  groupSettings?: Partial<Record<RealmGroupSettingName, number | undefined>>;
  /** The realm group settings of levels 209 and 225, stored by group id. */
  groupIdSettings?: Partial<Record<RealmPermissionSettingName, number | undefined>>;
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
  for (const name of OWNER_ONLY_GROUP_SETTINGS) if (req.groupIdSettings?.[name] !== undefined && !isOwner) throw mustBeOwner();
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
    }
    wanted[key] = id < 0 ? -1 : id;
  }
  if (req.jitsiServerUrl !== undefined) {
    // Zulip's check_jitsi_url: "default", or a URL of at most 200 characters.
    const url = req.jitsiServerUrl;
    if (url !== 'default' && (url.length > JITSI_SERVER_URL_MAX_LENGTH || !isValidUrl(url))) throw badRequest('jitsi_server_url is not an allowed_type');
    wanted.jitsi_server_url = url === 'default' ? null : url;
  }
  // Levels 264-270 (src/lib/realm-group-settings.ts): stored as the policy replaced, or by group name.
  if (req.settings.private_message_policy !== undefined) {
    wanted.direct_message_permission_group = req.settings.private_message_policy === PRIVATE_MESSAGES_DISABLED ? SystemGroup.NOBODY : SystemGroup.EVERYONE;
  }
  for (const name of REALM_GROUP_SETTING_NAMES) {
    const id = req.groupSettings?.[name];
    if (id === undefined) continue;
    const group = await accessUserGroupForSetting(ctx.store.db, user, id, name, REALM_PERMISSION_SETTINGS[name]);
    if (name === 'can_create_public_channel_group' || name === 'can_create_private_channel_group') wanted[POLICY_OF[name]] = policyOfGroup(group.name);
    else wanted[name] = group.name;
    if (name === 'direct_message_permission_group') wanted.private_message_policy = group.name === SystemGroup.NOBODY ? PRIVATE_MESSAGES_DISABLED : 1;
  }
  if (req.stringId !== undefined) {
    if (!isOwner) throw mustBeOwner();
    // Zulip lets only demo organizations change their subdomain; Parley has none.
    throw badRequest('Must be a demo organization.');
  }
  return wanted;
}

/** The realm group settings that change, each group checked as Zulip's access_user_group_for_setting does (only when it differs). */
async function checkGroupSettings(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest): Promise<Array<[RealmPermissionSettingName, number]>> {
  const out: Array<[RealmPermissionSettingName, number]> = [];
  for (const name of ID_STORED_REALM_GROUP_SETTINGS) {
    const id = req.groupIdSettings?.[name];
    if (id === undefined || id === await realmGroupSettingId(ctx.store.db, realm, name)) continue;
    await accessUserGroupForSetting(ctx.store.db, user, id, name, REALM_PERMISSION_SETTINGS[name]);
    out.push([name, id]);
  }
  return out;
}

/**
 * Levels 299-352 (src/lib/realm-policy-groups.ts): a replaced policy that a client still sends
 * sets its group settings (each a role's system group), unless the request names them itself.
 */
async function withPolicyGroups(ctx: AppContext, realm: RealmRow, req: RealmUpdateRequest, wanted: Record<string, unknown>): Promise<RealmUpdateRequest> {
  const given = REPLACED_POLICIES.filter((r) => wanted[r.policy] !== undefined);
  if (given.length === 0) return req;
  const ids = await userGroups.systemGroupsByName(ctx.store.db, realm.id);
  const groupIdSettings = { ...req.groupIdSettings };
  for (const r of given) {
    for (const [name, group] of Object.entries(r.groupsOf(wanted[r.policy] as number)) as Array<[RealmPermissionSettingName, string]>) {
      groupIdSettings[name] ??= ids.get(group)?.id;
    }
  }
  return { ...req, groupIdSettings };
}

/** The replaced policies whose groups change, stored as what the groups amount to (unless the client sent the policy). */
async function derivePolicies(ctx: AppContext, realm: RealmRow, changes: Array<[RealmPermissionSettingName, number]>, wanted: Record<string, unknown>): Promise<void> {
  const touched = new Set(changes.map(([n]) => POLICY_OF_GROUP_SETTING.get(n)).filter((r): r is ReplacedPolicy => r !== undefined));
  if (touched.size === 0) return;
  const names = new Map([...(await userGroups.systemGroupsByName(ctx.store.db, realm.id))].map(([n, g]) => [g.id, n]));
  const after = new Map(changes);
  for (const r of touched) {
    if (wanted[r.policy] !== undefined) continue;
    const groups: Partial<Record<RealmPermissionSettingName, string | null>> = {};
    for (const g of Object.keys(r.groupsOf(1)) as RealmPermissionSettingName[]) {
      const value: unknown = after.get(g) ?? await realmGroupSettingId(ctx.store.db, realm, g);
      groups[g] = typeof value === 'number' ? names.get(value) ?? null : null;
    }
    wanted[r.policy] = r.policyOf(groups);
  }
}

/**
 * PATCH /realm: changes what differs and answers Zulip's `data` (each changed setting's
 * value, "updated" for text). Events to every active user: a realm/update per changed
 * setting, the message-editing ones included (Zulip from level 150; Zulip 5 grouped those
 * in one realm/update_dict, which clients apply to the same state).
 */
export async function updateRealm(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest): Promise<Record<string, unknown>> {
  const wanted = await checkRealmUpdate(ctx, realm, user, req);
  const groupChanges = await checkGroupSettings(ctx, realm, user, await withPolicyGroups(ctx, realm, req, wanted));
  await derivePolicies(ctx, realm, groupChanges, wanted);
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
    for (const [k, id] of groupChanges) own[k] = id;
    if (changed.length > 0 || groupChanges.length > 0 || patch.description !== undefined) patch.settings = JSON.stringify(own);
    if (Object.keys(patch).length === 0) return data;
    await realms.update(tx.db, realm.id, patch);

    const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
    const level = ctx.config.featureLevel;
    const groupNames: readonly string[] = REALM_GROUP_SETTING_NAMES;
    for (const [k, v] of changed) {
      if (groupNames.includes(k)) continue;
      const value = presentRealmSetting(k, v, level);
      // Level 358's policy is answered by name, as Zulip's enum is.
      const answered = typeof value === 'string' && k !== 'message_edit_history_visibility_policy' ? 'updated' : value;
      if (answeredAtLevel(k, level)) for (const name of namesAtLevel(k, level)) data[name] = answered;
      if (announcedAtLevel(k, level)) for (const property of eventNames(k)) events.push({ property, value });
    }
    for (const e of events) tx.notify({ type: 'realm', op: 'update', property: e.property, value: e.value }, audience, realm.id);
    // Group settings whose group changed, announced as Zulip's do_change_realm_permission_group_setting does.
    const after = realmSettings(JSON.stringify(own));
    const moved = REALM_GROUP_SETTING_NAMES.filter((n) => realmGroupSetting(after, n) !== realmGroupSetting(realmSettings(current.settings), n));
    if (moved.length > 0) {
      const ids = await userGroups.systemGroupsByName(tx.db, realm.id);
      for (const n of moved) {
        const id = ids.get(realmGroupSetting(after, n))?.id;
        if (id === undefined) continue;
        if (level >= REALM_GROUP_SETTING_LEVELS[n]) data[n] = id;
        tx.notify({ type: 'realm', op: 'update_dict', property: 'default', data: { [n]: id } }, audience, realm.id);
      }
    }
    // Zulip's do_change_realm_permission_group_setting: one update_dict per setting.
    for (const [k, id] of groupChanges) {
      if (level >= REALM_PERMISSION_SETTING_LEVELS[k]) data[k] = id;
      tx.notify({ type: 'realm', op: 'update_dict', property: 'default', data: { [k]: id } }, audience, realm.id);
    }
    // Before level 150 the answer named the whole message-editing trio whenever one of them changed.
    if (ctx.config.featureLevel < 150 && changed.some(([k]) => (MESSAGE_EDITING_SETTINGS as readonly string[]).includes(k))) {
      const after = { ...settings, ...own } as Record<string, unknown>;
      for (const k of MESSAGE_EDITING_SETTINGS) data[k] = k === 'message_content_edit_limit_seconds' ? presentEditLimit(after[k] as number | null, ctx.config.featureLevel) : after[k];
    }
    return data;
  });
}

