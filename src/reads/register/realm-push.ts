import type { Q, RealmRow } from '../../store/rows.js';
import type { Config } from '../../config.js';
import { pushRealm } from '../../store/repos/push-outbox.js';
import { pushNotificationsEnabled } from '../../lib/push-status.js';

/**
 * register's realm_push_notifications_enabled and (level 231) its end timestamp: Zulip's
 * realm.push_notifications_enabled, which the push notification service's answer to the
 * server data upload sets (src/notifications/push-analytics.ts). Until it has answered, what
 * the server's registration says; with push off, false and no query.
 */
export async function realmPushState(db: Q, config: Config, realm: RealmRow): Promise<Record<string, unknown>> {
  const configured = pushNotificationsEnabled(config);
  const row = configured ? await pushRealm.find(db, realm.id) : undefined;
  const out: Record<string, unknown> = { realm_push_notifications_enabled: configured && (row ? row.can_push === 1 : true) };
  if (config.featureLevel >= 231) out.realm_push_notifications_enabled_end_timestamp = row?.end_timestamp ?? null;
  return out;
}
