import type { Config } from '../config.js';
import type { RealmRow } from '../rows.js';

/**
 * Zulip's model: the organization on the root host has string_id '' and each other
 * organization lives on a subdomain named by its string_id.
 */
export const ROOT_STRING_ID = '';

// Every request resolves its Host against the external URL; parse that once.
const parsed = new WeakMap<Config, { url: URL; root: string }>();

function base(config: Config): URL {
  return rootOf(config).url;
}

function rootOf(config: Config): { url: URL; root: string } {
  let p = parsed.get(config);
  if (!p) {
    const url = new URL(config.externalUrl);
    p = { url, root: url.hostname.toLowerCase() };
    parsed.set(config, p);
  }
  return p;
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
  // `acme.example.com.` (the fully qualified form) and `acme.example.com:443` name the same
  // host as `acme.example.com`; a bracketed IPv6 literal keeps its colons.
  const host = hostHeader.trim().toLowerCase().replace(/:\d*$/, '').replace(/\.+$/, '');
  const { root } = rootOf(config);
  if (host.endsWith(`.${root}`)) return host.slice(0, -(root.length + 1));
  return ROOT_STRING_ID;
}
