import { PER_USER_EMAIL_VISIBILITY_LEVEL } from '../../presenters/user.js';
import { route, type AuthedRequest, type Route } from '../route.js';
import { AnyJson, Bool, Int, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { REALM_PERMISSION_SETTING_LEVELS, REALM_PERMISSION_SETTING_NAMES, type RealmPermissionSettingName } from '../../lib/permission-settings.js';
import { decodeGroupSettingChange } from '../../lib/group-setting-value.js';
import { undeclaredNames } from '../args.js';
import { strOrInt } from '../../lib/str-or-int.js';
import { REALM_SETTING_RULES, MAX_REALM_DESCRIPTION_LENGTH, MAX_REALM_NAME_LENGTH, type RealmSettingName } from '../../lib/realm-setting-rules.js';
import { SETTING_RULES, type SettingName } from '../../lib/settings-rules.js';
import { updateRealm } from '../../actions/realm-update.js';
import { updateRealmUserDefaults } from '../../actions/realm-user-defaults.js';

const paramOf = (kind: string) => (kind === 'bool' ? Opt(Bool()) : kind === 'str' || kind === 'strIn' || kind === 'timeLimit' ? Opt(Str()) : Opt(Int()));
const ruleParams = <N extends string>(rules: Record<N, { kind: string }>, names: readonly N[] = Object.keys(rules) as N[]) =>
  Object.fromEntries(names.map((n) => [n, paramOf(rules[n].kind)])) as Record<N, ReturnType<typeof paramOf>>;

const STR_OR_INT = 'A number, or "unlimited" (JSON-quoted or bare)';
const REALM_PARAMS = {
  name: Opt(Str({ maxLength: MAX_REALM_NAME_LENGTH })),
  description: Opt(Str({ maxLength: MAX_REALM_DESCRIPTION_LENGTH })),
  ...ruleParams(REALM_SETTING_RULES),
  message_retention_days: Opt(Str({ description: STR_OR_INT })),
  message_content_delete_limit_seconds: Opt(Str({ description: STR_OR_INT })),
  message_content_edit_limit_seconds: Opt(Str({ description: STR_OR_INT })),
  notifications_stream_id: Opt(Int({ description: '-1 for none' })),
  signup_notifications_stream_id: Opt(Int({ description: '-1 for none' })),
  // Level 241's names of the two above, and level 242's stream (with the spec's service_ spelling).
  new_stream_announcements_stream_id: Opt(Int({ description: '-1 for none (notifications_stream_id\'s new name)' })),
  signup_announcements_stream_id: Opt(Int({ description: '-1 for none (signup_notifications_stream_id\'s new name)' })),
  zulip_update_announcements_stream_id: Opt(Int({ description: '-1 for none' })),
  service_update_announcements_stream_id: Opt(Int({ description: 'zulip_update_announcements_stream_id under the spec\'s spelling' })),
  jitsi_server_url: Opt(Str({ description: '"default" (the server\'s) or a URL; JSON-quoted or bare' })),
  string_id: Opt(Str({ maxLength: 40 })),
  // The realm permission settings (levels 209-367): a group-setting value, or {new, old} (src/lib/realm-group-settings.ts).
  ...Object.fromEntries(REALM_PERMISSION_SETTING_NAMES.map((n) => [n, Opt(AnyJson({
    description: `Feature level ${REALM_PERMISSION_SETTING_LEVELS[n]}: a group's id, or {direct_members, direct_subgroups}, or {new, old}`,
  }))])) as Record<RealmPermissionSettingName, ReturnType<typeof Opt<ReturnType<typeof AnyJson>>>>,
};
type RealmArgs = ArgsOf<typeof REALM_PARAMS>;

/** Zulip's check_string_or_int: a JSON integer, or a string (JSON-quoted or bare). */
/** A time limit or retention parameter, when sent (src/lib/str-or-int.ts). */
const optStrOrInt = (name: string, raw: string | undefined): number | string | undefined => (raw === undefined ? undefined : strOrInt(name, raw));

/** Zulip reads jitsi_server_url as JSON (a quoted string); a bare string is taken as itself. */
function jsonOrBareString(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'string') return v;
  } catch {
    /* bare */
  }
  return raw;
}

function realmSettingsOf(r: AuthedRequest<RealmArgs>): Partial<Record<RealmSettingName, unknown>> {
  const out: Partial<Record<RealmSettingName, unknown>> = {};
  for (const name of Object.keys(REALM_SETTING_RULES) as RealmSettingName[]) {
    const v = r.args[name];
    if (v !== undefined) out[name] = v;
  }
  // From feature level 163 the setting is each user's own (PATCH /settings): the organization's is gone, as in Zulip 7.
  if (r.ctx.config.featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL) delete out.email_address_visibility;
  return out;
}

/** The personal settings an organization sets defaults for: all but the time zone. */
const DEFAULTABLE = (Object.keys(SETTING_RULES) as SettingName[]).filter((n) => n !== 'timezone');
const DEFAULTS_PARAMS = ruleParams(SETTING_RULES, DEFAULTABLE);
const IGNORED = Type.Object({ ignored_parameters_unsupported: Type.Optional(Type.Array(Type.String())) });

export const realmRoutes: Route[] = [
  route({
    method: 'PATCH', path: '/realm', auth: 'user', summary: 'Update the organization\'s settings', requires: 'admin',
    params: REALM_PARAMS,
    answer: IGNORED,
    handler: async (r) => {
      const { name, description } = r.args;
      return updateRealm(r.ctx, r.realm, r.user, {
        name, description, settings: realmSettingsOf(r),
        messageRetentionDays: optStrOrInt('message_retention_days', r.args.message_retention_days),
        messageContentDeleteLimitSeconds: optStrOrInt('message_content_delete_limit_seconds', r.args.message_content_delete_limit_seconds),
        messageContentEditLimitSeconds: optStrOrInt('message_content_edit_limit_seconds', r.args.message_content_edit_limit_seconds),
        streams: {
          notifications_stream_id: r.args.new_stream_announcements_stream_id ?? r.args.notifications_stream_id,
          signup_notifications_stream_id: r.args.signup_announcements_stream_id ?? r.args.signup_notifications_stream_id,
          zulip_update_announcements_stream_id: r.args.zulip_update_announcements_stream_id ?? r.args.service_update_announcements_stream_id,
        },
        jitsiServerUrl: jsonOrBareString(r.args.jitsi_server_url),
        stringId: r.args.string_id,
        groupSettings: Object.fromEntries(REALM_PERMISSION_SETTING_NAMES.filter((n) => r.args[n] !== undefined)
          .map((n) => [n, decodeGroupSettingChange(n, r.args[n])])),
      });
    },
  }),
  route({
    method: 'PATCH', path: '/realm/user_settings_defaults', auth: 'user', summary: 'Update the defaults of new users\' settings', requires: 'admin',
    params: DEFAULTS_PARAMS,
    answer: IGNORED,
    handler: async (r) => {
      const values: Partial<Record<SettingName, unknown>> = {};
      for (const name of DEFAULTABLE) {
        const v = r.args[name];
        if (v !== undefined) values[name] = v;
      }
      await updateRealmUserDefaults(r.ctx, r.realm, r.user, values);
      const ignored = undeclaredNames(r.args);
      return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
    },
  }),
];
