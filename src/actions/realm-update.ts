import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { badRequest, invalidStreamId, mustBeAdmin, mustBeOwner } from '../errors.js';
import { isAdminRole, Role } from '../lib/roles.js';
import { presentEditLimit, realmSettings } from '../lib/realm-settings.js';
import { LANGUAGE_NAMES } from '../lib/languages.js';
import {
  GIPHY_RATING_IDS, MESSAGE_EDITING_SETTINGS, OWNER_ONLY_SETTINGS, REALM_SETTING_RULES, VIDEO_CHAT_PROVIDER_IDS, WILDCARD_STREAM_ADMINS, type RealmSettingName,
} from '../lib/realm-setting-rules.js';
import { accessStreamById } from '../access/stream.js';
import { renderMessage } from '../markdown/bounded.js';
import { renderContextFor } from '../reads/render-context.js';

export interface RealmUpdateRequest {
  name?: string | undefined;
  description?: string | undefined;
  /** Decoded by REALM_SETTING_RULES. */
  settings: Partial<Record<RealmSettingName, unknown>>;
  /** An integer or a string (`unlimited`), as Zulip's check_string_or_int decodes them. */
  messageRetentionDays?: number | string | undefined;
  messageContentDeleteLimitSeconds?: number | string | undefined;
  messageContentEditLimitSeconds?: number | string | undefined;
  notificationsStreamId?: number | undefined;
  signupNotificationsStreamId?: number | undefined;
  stringId?: string | undefined;
}

/** Zulip's RequestVariableConversionError message. */
const badValue = (name: string, value: unknown) => badRequest(`Bad value for '${name}': ${String(value)}`);

/** Zulip's check_string_or_int on a raw parameter: a JSON integer, or a string (JSON-quoted or bare). */
function strOrInt(name: string, raw: string): number | string {
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    /* a bare string such as `unlimited` */
  }
  if (typeof v === 'string' || Number.isSafeInteger(v)) return v as string | number;
  throw badRequest(`${name} is not a string or integer`);
}

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
  for (const [key, id] of [['notifications_stream_id', req.notificationsStreamId], ['signup_notifications_stream_id', req.signupNotificationsStreamId]] as const) {
    if (id === undefined) continue;
    if (id >= 0) {
      const { stream } = await accessStreamById(ctx.store.db, user, id);
      if (stream.deactivated === 1) throw invalidStreamId();
    }
    wanted[key] = id < 0 ? -1 : id;
  }
  if (req.stringId !== undefined) {
    if (!isOwner) throw mustBeOwner();
    // Zulip lets only demo organizations change their subdomain; Parley has none.
    throw badRequest('Must be a demo organization.');
  }
  return wanted;
}

/**
 * PATCH /realm: changes what differs and answers Zulip's `data` (each changed setting's
 * value, "updated" for text). Events as Zulip 5 sends them to every active user: a
 * realm/update per setting, one realm/update_dict for the message-editing trio.
 */
export async function updateRealm(ctx: AppContext, realm: RealmRow, user: UserRow, req: RealmUpdateRequest): Promise<Record<string, unknown>> {
  const wanted = await checkRealmUpdate(ctx, realm, user, req);
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
    if (changed.length > 0 || patch.description !== undefined) patch.settings = JSON.stringify(own);
    if (Object.keys(patch).length === 0) return data;
    await realms.update(tx.db, realm.id, patch);

    const editing = changed.some(([k]) => (MESSAGE_EDITING_SETTINGS as readonly string[]).includes(k));
    for (const [k, v] of changed) {
      if ((MESSAGE_EDITING_SETTINGS as readonly string[]).includes(k)) continue;
      data[k] = typeof v === 'string' ? 'updated' : v;
      events.push({ property: k, value: v });
    }
    const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
    for (const e of events) tx.notify({ type: 'realm', op: 'update', property: e.property, value: e.value }, audience, realm.id);
    if (editing) {
      const after = { ...settings, ...own } as Record<string, unknown>;
      const trio = Object.fromEntries(MESSAGE_EDITING_SETTINGS.map((k) => [k, after[k]]));
      trio.message_content_edit_limit_seconds = presentEditLimit(trio.message_content_edit_limit_seconds as number | null, ctx.config.featureLevel);
      Object.assign(data, trio);
      notifyUpdateDict(tx, realm.id, audience, trio);
    }
    return data;
  });
}

function notifyUpdateDict(tx: Tx, realmId: number, audience: number[], data: Record<string, unknown>): void {
  tx.notify({ type: 'realm', op: 'update_dict', property: 'default', data }, audience, realmId);
}
