import type { RealmRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import { realmUri } from '../../lib/realm-host.js';

/** Zulip's settings.JITSI_SERVER_URL default: the server's Jitsi, used while the organization sets none. */
export const SERVER_JITSI_SERVER_URL = 'https://meet.jit.si';

/** register's `realm` keys of issue 31's realm package that are no organization setting, each from its level. */
export function laterRealmState(config: Config, realm: RealmRow, authenticationMethods: Record<string, boolean>): Record<string, unknown> {
  const level = config.featureLevel;
  const out: Record<string, unknown> = {};
  if (level >= 212) out.server_jitsi_server_url = SERVER_JITSI_SERVER_URL;
  // Parley sends no push notifications through a bouncer: no end date to announce.
  if (level >= 231) out.realm_push_notifications_enabled_end_timestamp = null;
  // Level 243: each method says whether it is enabled and available (Zulip without billing: always available).
  if (level >= 243) {
    out.realm_authentication_methods = Object.fromEntries(Object.entries(authenticationMethods).map(([k, enabled]) => [k, { enabled, available: true }]));
  }
  if (level >= 257) out.realm_url = realmUri(config, realm);
  return out;
}
