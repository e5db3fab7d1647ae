import type { Config } from '../config.js';

/**
 * Whether this server can push to the Zulip apps: Zulip's push_notifications_configured,
 * true once PARLEY_PUSH_BOUNCER_URL is set and the service has accepted this server's
 * registration (src/notifications/push.ts records it). Kept per server configuration, so
 * that each server of a process (tests run several) answers for itself.
 */
const registered = new WeakSet<Config>();

export function setPushRegistered(config: Config, yes: boolean): void {
  if (yes) registered.add(config);
  else registered.delete(config);
}

/**
 * server_settings' push_notifications_enabled, and register's realm_push_notifications_enabled
 * until the service answers for the organization (src/reads/register/realm-push.ts).
 */
export function pushNotificationsEnabled(config: Config): boolean {
  return !!config.pushBouncerUrl && registered.has(config);
}
