import net from 'node:net';
import { Client, Filter, InvalidCredentialsError, SizeLimitExceededError, type Entry } from 'ldapts';
import type { LdapConfig } from '../lib/sso-config.js';

/** Who the directory says signed in. */
export interface LdapPerson {
  email: string;
  fullName: string | null;
}

/**
 * The directory could not answer (down, refused TLS, refused the service account, an entry
 * without an address): the operator's problem, never the person's wrong password. The
 * message never holds the password.
 */
export class LdapUnavailable extends Error {}

/** Long enough for a directory across a WAN, short enough that a sign-in form does not hang. */
const CONNECT_TIMEOUT_MS = 5000;
const OPERATION_TIMEOUT_MS = 5000;

/** The user filter for a username, the value escaped as RFC 4515 says so that `prefix*` matches nobody. */
export function userFilter(ldap: LdapConfig, username: string): string {
  return ldap.userFilter.replaceAll('{username}', Filter.escape(username));
}

/**
 * Zulip's ZulipLDAPAuthBackend over `ldapts`: the service account (or an anonymous session)
 * finds exactly one entry for the username (failing that, for an address, the entry with
 * that address), then binding as that entry checks the password. null: no such person or
 * a wrong password. Throws LdapUnavailable when the directory cannot say.
 */
export async function authenticateLdap(ldap: LdapConfig, username: string, password: string): Promise<LdapPerson | null> {
  // An empty password is an unauthenticated bind (RFC 4513 5.1.2), which servers answer with success.
  if (password === '' || username.trim() === '') return null;
  const host = new URL(ldap.url).hostname.replace(/^\[|\]$/g, '');
  const tlsOptions = {
    ...(ldap.ca !== null ? { ca: ldap.ca } : {}),
    host,
    // SNI takes names only; an address is still checked against the certificate's IP entries.
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
  };
  // ldapts speaks TLS from the first byte whenever it is given TLS options: ldaps:// only.
  const secure = /^ldaps:/i.test(ldap.url);
  const client = new Client({ url: ldap.url, connectTimeout: CONNECT_TIMEOUT_MS, timeout: OPERATION_TIMEOUT_MS, ...(secure ? { tlsOptions } : {}) });
  try {
    try {
      if (ldap.startTls) await client.startTLS(tlsOptions);
      if (ldap.bindDn !== null) await client.bind(ldap.bindDn, ldap.bindPassword ?? '');
    } catch (err) {
      throw new LdapUnavailable(`${ldap.bindDn === null ? 'connecting' : 'the service account bind'}: ${describe(err)}`, { cause: err });
    }
    let entry = await findOne(client, ldap, userFilter(ldap, username.trim()));
    if (entry === undefined && username.includes('@')) {
      entry = await findOne(client, ldap, `(${ldap.emailAttr}=${Filter.escape(username.trim())})`);
    }
    if (!entry) return null;
    try {
      await client.bind(entry.dn, password);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return null;
      throw new LdapUnavailable(`binding as ${entry.dn}: ${describe(err)}`, { cause: err });
    }
    const email = attribute(entry, ldap.emailAttr);
    if (!email) throw new LdapUnavailable(`the entry ${entry.dn} has no ${ldap.emailAttr} attribute (PARLEY_LDAP_EMAIL_ATTR)`);
    return { email, fullName: attribute(entry, ldap.nameAttr) ?? null };
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/**
 * The one entry the filter finds; null when it finds several (no guessing which person
 * is meant); undefined when none.
 */
async function findOne(client: Client, ldap: LdapConfig, filter: string): Promise<Entry | null | undefined> {
  try {
    const { searchEntries } = await client.search(ldap.userSearchBase, {
      scope: 'sub', filter, attributes: [ldap.emailAttr, ldap.nameAttr], sizeLimit: 2,
    });
    if (searchEntries.length === 0) return undefined;
    return searchEntries.length === 1 ? searchEntries[0]! : null;
  } catch (err) {
    if (err instanceof SizeLimitExceededError) return null;
    throw new LdapUnavailable(`searching ${ldap.userSearchBase}: ${describe(err)}`, { cause: err });
  }
}

/** An attribute's first value as text; directories answer names in their own case. */
function attribute(entry: Entry, name: string): string | undefined {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  const text = (Buffer.isBuffer(first) ? first.toString('utf8') : String(first)).trim();
  return text === '' ? undefined : text;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
}
