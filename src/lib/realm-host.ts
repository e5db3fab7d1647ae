import type { Config } from '../config.js';
import type { RealmRow } from '../store/rows.js';

/**
 * Zulip's model: the organization on the root host has string_id '' and each other
 * organization lives on a subdomain named by its string_id.
 */
export const ROOT_STRING_ID = '';

function base(config: Config): URL {
  return new URL(config.externalUrl);
}

export function realmUri(config: Config, realm: Pick<RealmRow, 'string_id'>): string {
  const u = base(config);
  if (realm.string_id === ROOT_STRING_ID) return u.origin;
  return `${u.protocol}//${realm.string_id}.${u.host}`;
}

/** Domain for addresses Parley makes up itself (bot emails, stream emails). */
export function realmEmailDomain(config: Config, realm: Pick<RealmRow, 'string_id'>): string {
  const host = base(config).hostname;
  return realm.string_id === ROOT_STRING_ID ? host : `${realm.string_id}.${host}`;
}

/** The string_id a request's Host header selects ('' for the root host). */
export function subdomainOf(config: Config, hostHeader: string | undefined): string {
  if (!hostHeader) return ROOT_STRING_ID;
  const host = hostHeader.toLowerCase().replace(/:\d+$/, '');
  const root = base(config).hostname.toLowerCase();
  if (host.endsWith(`.${root}`)) return host.slice(0, -(root.length + 1));
  return ROOT_STRING_ID;
}
