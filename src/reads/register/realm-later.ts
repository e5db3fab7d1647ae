import type { RealmRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import { realmUri } from '../../lib/realm-host.js';

/** Zulip's settings.JITSI_SERVER_URL default: the server's Jitsi, used while the organization sets none. */
export const SERVER_JITSI_SERVER_URL = 'https://meet.jit.si';

/** Zulip's PASSWORD_MAX_LENGTH: the longest password accepted (register's password_max_length from level 338). */
export const PASSWORD_MAX_LENGTH = 100;

/** register's `realm` keys of issue 31's realm package that are no organization setting, each from its level. */
export function laterRealmState(config: Config, realm: RealmRow, authenticationMethods: Record<string, boolean>): Record<string, unknown> {
  const level = config.featureLevel;
  const out: Record<string, unknown> = {};
  if (level >= 212) out.server_jitsi_server_url = SERVER_JITSI_SERVER_URL;
  // Zulip's push_notifications_enabled_end_timestamp: the end of the service's plan, as the
  // service last answered (register/realm-push.ts fills it in); none announced until then.
  if (level >= 231) out.realm_push_notifications_enabled_end_timestamp = null;
  // Level 243: each method says whether it is enabled and available (Zulip without billing: always available).
  if (level >= 243) {
    out.realm_authentication_methods = Object.fromEntries(Object.entries(authenticationMethods).map(([k, enabled]) => [k, { enabled, available: true }]));
  }
  if (level >= 257) out.realm_url = realmUri(config, realm);
  // Level 332: Zulip's MIN/MAX_DEACTIVATED_REALM_DELETION_DAYS defaults. Parley has no
  // POST /realm/deactivate (nor deletes deactivated organizations): the numbers are Zulip's.
  if (level >= 332) Object.assign(out, { server_min_deactivated_realm_deletion_days: 14, server_max_deactivated_realm_deletion_days: null });
  // Level 338: Zulip's PASSWORD_MAX_LENGTH.
  if (level >= 338) out.password_max_length = PASSWORD_MAX_LENGTH;
  // Level 369: the server's navigation tour video (Zulip's NAVIGATION_TOUR_VIDEO_URL); Parley has none.
  if (level >= 369) out.navigation_tour_video_url = null;
  return out;
}
