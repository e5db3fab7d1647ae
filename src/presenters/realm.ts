import crypto from 'node:crypto';
import type { Config } from '../config.js';
import type { RealmRow } from '../rows.js';
import { realmUri } from '../lib/realm-host.js';
import { versionFields } from '../lib/version.js';
import { realmSettings } from '../lib/realm-settings.js';
import type { WireServerSettings } from '../schemas/wire.js';
import { pushNotificationsEnabled } from '../lib/push-status.js';
import { externalAuthenticationMethods, serverAuthenticationMethods } from './auth-methods.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const icons = new Map<number, string>();

/** Zulip's realm_icon_url: the uploaded icon (its version in the URL), else a Gravatar identicon. */
export function realmIconUrl(realm: RealmRow): string {
  const settings = realmSettings(realm.settings) as { icon_source: string; icon_version?: unknown };
  // icon_version is written only by POST /realm/icon (src/actions/realm-icon.ts): an imported
  // organization's icon_source 'U' comes without its file (realm_icons/ is not imported yet).
  if (settings.icon_source === 'U' && typeof settings.icon_version === 'number') {
    return `/user_avatars/${realm.id}/realm/icon.png?version=${settings.icon_version}`;
  }
  let url = icons.get(realm.id);
  if (url === undefined) {
    const hash = crypto.createHash('md5').update(`realm-${realm.string_id}-${realm.id}`).digest('hex');
    url = `https://secure.gravatar.com/avatar/${hash}?d=identicon&s=100`;
    icons.set(realm.id, url);
  }
  return url;
}

export function presentServerSettings(config: Config, realm: RealmRow): WireServerSettings {
  const settings = realmSettings(realm.settings);
  return {
    authentication_methods: serverAuthenticationMethods(config.sso) as WireServerSettings['authentication_methods'],
    external_authentication_methods: externalAuthenticationMethods(config.sso),
    ...versionFields(config.featureLevel),
    push_notifications_enabled: pushNotificationsEnabled(config),
    is_incompatible: false,
    email_auth_enabled: config.sso.passwordAuth,
    // Zulip's require_email_format_usernames: a directory's usernames need not be addresses.
    require_email_format_usernames: config.sso.ldap === null,
    realm_uri: realmUri(config, realm),
    // Level 257: the same URL under its new name.
    ...(config.featureLevel >= 257 ? { realm_url: realmUri(config, realm) } : {}),
    realm_name: realm.name,
    realm_icon: realmIconUrl(realm),
    realm_description: renderedDescription(realm),
    realm_web_public_access_enabled: settings.enable_spectator_access,
  };
}

/** The description as PATCH /realm rendered it (markdown), or a plain paragraph for one set otherwise. */
function renderedDescription(realm: RealmRow): string {
  const stored = (realmSettings(realm.settings) as { rendered_description?: unknown }).rendered_description;
  if (typeof stored === 'string') return stored;
  return realm.description ? `<p>${escapeHtml(realm.description)}</p>` : '';
}
