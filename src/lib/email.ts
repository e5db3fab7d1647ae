import { isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * Email addresses as Zulip accepts them: Django's EmailValidator (a dot-atom local part;
 * a domain of dot-separated labels ending in a top-level one of two or more letters or
 * digits, `localhost`, or a bracketed IPv4 or IPv6 literal; an internationalised domain in its
 * ASCII form; a bare IPv4 address too, see IPV4_DOMAIN) within Zulip's 254 characters.
 * Django's quoted local parts ("a b"@x) are not taken: they are the only form that admits control characters, which no engine should
 * store (PostgreSQL refuses NUL in text; SQLite would keep it).
 */
const LOCAL_PART = /^[-!#$%&'*+/=?^_`{}|~0-9a-z]+(\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*$/i;
const DOMAIN = /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+)(?:[a-z0-9-]{2,63})$/i;
const IPV4 = '(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}';
// Bracketed as Django takes it; bare as well, unlike Django, because a server reached by
// its IP address (the default external URL) makes up its bots' addresses on that host.
const IPV4_DOMAIN = new RegExp(`^(\\[${IPV4}\\]|${IPV4})$`);
// Django's literal form for IPv6 (`[::1]`, the hostname of an external URL on IPv6).
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;
export const MAX_EMAIL_LENGTH = 254;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Control characters (NUL among them) are in no valid address: a lookup by one finds nobody. */
export function hasControlCharacters(s: string): boolean {
  return CONTROL.test(s);
}

export function isValidEmail(email: string): boolean {
  if (!email || email.length > MAX_EMAIL_LENGTH || hasControlCharacters(email)) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!LOCAL_PART.test(local)) return false;
  if (domain.toLowerCase() === 'localhost' || IPV4_DOMAIN.test(domain)) return true;
  if (IPV6_LITERAL.test(domain)) return isIPv6(domain.slice(1, -1));
  if (DOMAIN.test(domain) && !domain.endsWith('-')) return true;
  // An internationalised domain is checked in its ASCII (punycode) form, as Django does.
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii !== domain && DOMAIN.test(ascii) && !ascii.endsWith('-');
}
