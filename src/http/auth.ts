import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../rows.js';
import { ApiError, invalidApiKey, nonexistentSubdomain, realmDeactivated, unauthorized, userDeactivated } from '../errors.js';
import { constantTimeEqual } from '../lib/secrets.js';
import { subdomainOf } from '../lib/realm-host.js';
import { loginByEmail, realmBySubdomain, rememberVerifiedHeader, verifiedHeader } from '../reads/logins.js';

const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;

export async function resolveRealm(ctx: AppContext, host: string | undefined): Promise<RealmRow> {
  const realm = await realmBySubdomain(ctx.store.db, subdomainOf(ctx.config, host));
  if (!realm) throw nonexistentSubdomain();
  return realm;
}

export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } {
  if (header === undefined) throw unauthorized('Missing authorization header for basic auth');
  const [scheme, credentials, ...rest] = header.trim().split(/\s+/);
  if (!scheme || !credentials || rest.length > 0) throw unauthorized('Invalid authorization header for basic auth');
  if (scheme.toLowerCase() !== 'basic') throw unauthorized('This endpoint requires HTTP basic authentication.');
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const sep = decoded.lastIndexOf(':');
  if (sep <= 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, sep), apiKey: decoded.slice(sep + 1) };
}

/**
 * The login this exact header on this exact host was verified as, if that is still
 * current: no promise, so that GET /events can answer or park in the same tick.
 */
export function verifiedLogin(ctx: AppContext, host: string | undefined, header: string | undefined): { user: UserRow; realm: RealmRow } | undefined {
  return header !== undefined ? verifiedHeader(ctx.store.db, `${host ?? ''}\n${header}`) : undefined;
}

/** HTTP basic authentication with email and API key, against the Host's organization. */
export async function authenticate(ctx: AppContext, host: string | undefined, header: string | undefined): Promise<{ user: UserRow; realm: RealmRow }> {
  // The exact header (which holds the key) on the exact host was verified moments ago:
  // a hit skips decoding and comparing. Entries are only made after a verified login.
  const exact = verifiedLogin(ctx, host, header);
  if (exact) return exact;
  const { email, apiKey } = parseBasicAuth(header);
  // Zulip's has_api_key_format: anything but 32 letters and digits is no key at all.
  if (!API_KEY_FORMAT.test(apiKey)) throw new ApiError('INVALID_API_KEY', 'Malformed API key', 401);
  const login = await loginByEmail(ctx.store.db, subdomainOf(ctx.config, host), email);
  // The key is compared in constant time on every request that is not an exact repeat.
  if (!login || !constantTimeEqual(login.value.user.api_key, apiKey)) throw invalidApiKey();
  if (login.value.realm.deactivated === 1) throw realmDeactivated();
  if (login.value.user.is_active !== 1) throw userDeactivated();
  rememberVerifiedHeader(ctx.store.db, `${host ?? ''}\n${header}`, login);
  return login.value;
}
