import type { AuthedRequest, Route } from '../route.js';
import { badRequest, mustBeAdmin } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import { REALM_SETTING_RULES, MAX_REALM_DESCRIPTION_LENGTH, MAX_REALM_NAME_LENGTH, type RealmSettingName } from '../../lib/realm-setting-rules.js';
import { SETTING_RULES, type SettingName } from '../../lib/settings-rules.js';
import { updateRealm } from '../../actions/realm-update.js';
import { updateRealmUserDefaults } from '../../actions/realm-user-defaults.js';

/** Zulip's check_capped_string. */
function cappedStr(r: AuthedRequest, name: string, max: number): string | undefined {
  const v = r.params.optStr(name);
  if (v !== undefined && [...v].length > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return v;
}

/** Zulip's check_string_or_int: a JSON integer, or a string (JSON-quoted or bare). */
function strOrInt(r: AuthedRequest, name: string): number | string | undefined {
  const raw = r.params.rawValue(name);
  if (raw === undefined) return undefined;
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    /* a bare string such as `unlimited` */
  }
  if (typeof v === 'string' || Number.isSafeInteger(v)) return v as string | number;
  throw badRequest(`${name} is not a string or integer`);
}

function realmSettingsOf(r: AuthedRequest): Partial<Record<RealmSettingName, unknown>> {
  const out: Partial<Record<RealmSettingName, unknown>> = {};
  for (const [name, rule] of Object.entries(REALM_SETTING_RULES) as Array<[RealmSettingName, (typeof REALM_SETTING_RULES)[RealmSettingName]]>) {
    if (!r.params.has(name)) continue;
    if (rule.kind === 'bool') out[name] = r.params.optBool(name);
    else if (rule.kind === 'str') out[name] = r.params.optStr(name);
    else out[name] = r.params.optInt(name);
  }
  return out;
}

/** The personal settings an organization sets defaults for: all but the time zone. */
const DEFAULTABLE = (Object.keys(SETTING_RULES) as SettingName[]).filter((n) => n !== 'timezone');

export const realmRoutes: Route[] = [
  {
    method: 'PATCH', path: '/realm', auth: 'user',
    handler: async (r) => {
      // Zulip's require_realm_admin comes before any parameter is read.
      if (!isAdminRole(r.user.role)) throw mustBeAdmin();
      const name = cappedStr(r, 'name', MAX_REALM_NAME_LENGTH);
      const description = cappedStr(r, 'description', MAX_REALM_DESCRIPTION_LENGTH);
      return updateRealm(r.ctx, r.realm, r.user, {
        name, description, settings: realmSettingsOf(r),
        messageRetentionDays: strOrInt(r, 'message_retention_days'),
        messageContentDeleteLimitSeconds: strOrInt(r, 'message_content_delete_limit_seconds'),
        notificationsStreamId: r.params.optInt('notifications_stream_id'),
        signupNotificationsStreamId: r.params.optInt('signup_notifications_stream_id'),
        stringId: cappedStr(r, 'string_id', 40),
      });
    },
  },
  {
    method: 'PATCH', path: '/realm/user_settings_defaults', auth: 'user',
    handler: async (r) => {
      if (!isAdminRole(r.user.role)) throw mustBeAdmin();
      const values: Partial<Record<SettingName, unknown>> = {};
      for (const name of DEFAULTABLE) {
        if (!r.params.has(name)) continue;
        const rule = SETTING_RULES[name];
        if (rule.kind === 'bool') values[name] = r.params.optBool(name);
        else if (rule.kind === 'int' || rule.kind === 'intIn') values[name] = r.params.optInt(name);
        else values[name] = r.params.optStr(name);
      }
      await updateRealmUserDefaults(r.ctx, r.realm, r.user, values);
      const known = new Set<string>(DEFAULTABLE);
      const ignored = r.params.names().filter((n) => !known.has(n));
      return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
    },
  },
];
