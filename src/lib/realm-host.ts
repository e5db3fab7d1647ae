import { isIP } from 'node:net';
import type { Config } from '../config.js';
import type { RealmRow } from '../rows.js';
import { isValidEmail } from './email.js';

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

/**
 * The domain of every address Parley makes up itself: bots' (`x-bot@DOMAIN`), and people an
 * import brings without an email. Zulip's get_fake_email_domain: the organization's host when
 * `bot@<host>` is a valid address, else the server's FAKE_EMAIL_DOMAIN (PARLEY_FAKE_EMAIL_DOMAIN,
 * by default the external host). Unlike Zulip, the port never counts (Zulip's realm.host keeps
 * it, so that a host with a port always falls back), and an organization on a subdomain of an
 * IP address has no host of its own: `acme.127.0.0.1` is neither a name nor an address.
 * Addresses are unique per organization, so organizations sharing the fallback never collide.
 */
export function realmEmailDomain(config: Config, realm: Pick<RealmRow, 'string_id'>): string {
  const { root } = rootOf(config);
  if (realm.string_id === ROOT_STRING_ID) return usableDomain(root) ?? fallbackEmailDomain(config);
  if (isIP(root.replace(/^\[|\]$/g, '')) !== 0) return fallbackEmailDomain(config);
  return usableDomain(`${realm.string_id}.${root}`) ?? fallbackEmailDomain(config);
}

function usableDomain(domain: string): string | undefined {
  return isValidEmail(`bot@${domain}`) ? domain : undefined;
}

/**
 * Zulip refuses to run when its FAKE_EMAIL_DOMAIN is no valid domain; Parley's is checked when
 * the configuration loads, and without one an external host that makes no valid address (one
 * label, an underscore) falls back to `localhost`, the one name every email check takes.
 */
function fallbackEmailDomain(config: Config): string {
  return config.fakeEmailDomain ?? usableDomain(rootOf(config).root) ?? 'localhost';
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
