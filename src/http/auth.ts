import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { ApiError, unauthorized } from '../errors.js';
import { constantTimeEqual } from '../lib/secrets.js';
import { subdomainOf } from '../lib/realm-host.js';
import { identityVersion } from '../store/versions.js';

/**
 * Users and realms by login, kept until one changes: authentication ran a query on every
 * request and was most of the cost of a simple GET. In-process writes retire entries
 * at once (identityVersion); changes made by another process (the CLI, another node)
 * move the store's epoch and are seen within a second (store/epoch.ts). Entries used to
 * expire after two seconds instead, which at 1,000 users polling for events was 500
 * login queries a second.
 */
const MAX_ENTRIES = 10_000;
interface Cached<T> { version: number; value: T }
interface Caches {
  user: Map<string, Cached<{ user: UserRow; realm: RealmRow }>>;
  header: Map<string, Cached<{ user: UserRow; realm: RealmRow }>>;
  realm: Map<string, Cached<RealmRow>>;
}
// Per server: two servers in one process (the tests run several) must not share logins.
const cachesByCtx = new WeakMap<AppContext, Caches>();

function cachesOf(ctx: AppContext): Caches {
  let c = cachesByCtx.get(ctx);
  if (!c) cachesByCtx.set(ctx, (c = { user: new Map(), header: new Map(), realm: new Map() }));
  return c;
}

function cachedEntry<T>(cache: Map<string, Cached<T>>, key: string): Cached<T> | undefined {
  const hit = cache.get(key);
  if (hit && hit.version === identityVersion()) return hit;
  return undefined;
}

function cached<T>(cache: Map<string, Cached<T>>, key: string): T | undefined {
  return cachedEntry(cache, key)?.value;
}

function remember<T>(cache: Map<string, Cached<T>>, key: string, version: number, value: T): void {
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { version, value });
}

export const realmDeactivated = () =>
  new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
export const userDeactivated = () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;
const invalidApiKey = () => new ApiError('INVALID_API_KEY', 'Invalid API key', 401);

export async function resolveRealm(ctx: AppContext, host: string | undefined): Promise<RealmRow> {
  const sub = subdomainOf(ctx.config, host);
  const realmCache = cachesOf(ctx).realm;
  const hit = cached(realmCache, sub);
  if (hit) return hit;
  const version = identityVersion();
  const realm = await realms.findByStringId(ctx.store.db, sub);
  if (!realm) throw new ApiError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain', 404);
  remember(realmCache, sub, version, realm);
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
  return header !== undefined ? cached(cachesOf(ctx).header, `${host ?? ''}\n${header}`) : undefined;
}

/** HTTP basic authentication with email and API key, against the Host's organization. */
export async function authenticate(ctx: AppContext, host: string | undefined, header: string | undefined): Promise<{ user: UserRow; realm: RealmRow }> {
  // The exact header (which holds the key) on the exact host was verified moments ago:
  // a hit skips decoding and comparing. Entries are only made after a verified login.
  const exact = verifiedLogin(ctx, host, header);
  if (exact) return exact;
  const { user: userCache, header: headerCache } = cachesOf(ctx);
  const { email, apiKey } = parseBasicAuth(header);
  // Zulip's has_api_key_format: anything but 32 letters and digits is no key at all.
  if (!API_KEY_FORMAT.test(apiKey)) throw new ApiError('INVALID_API_KEY', 'Malformed API key', 401);
  if (email.includes('\u0000')) throw invalidApiKey();
  const key = `${subdomainOf(ctx.config, host)}\n${email.toLowerCase()}`;
  const hit = cachedEntry(userCache, key);
  if (hit) {
    if (!constantTimeEqual(hit.value.user.api_key, apiKey)) throw invalidApiKey();
    // Same version as the row it came from: a change since retires both.
    remember(headerCache, `${host ?? ''}\n${header}`, hit.version, hit.value);
    return hit.value;
  }
  const version = identityVersion();
  const row = await ctx.store.db
    .selectFrom('users')
    .innerJoin('realm', 'realm.id', 'users.realm_id')
    .selectAll('users')
    .select(['realm.string_id as r_string_id', 'realm.name as r_name', 'realm.description as r_description',
      'realm.settings as r_settings', 'realm.deactivated as r_deactivated', 'realm.date_created as r_date_created'])
    .where('realm.string_id', '=', subdomainOf(ctx.config, host))
    .where('users.email_lower', '=', email.toLowerCase())
    .executeTakeFirst();
  if (!row || !constantTimeEqual(row.api_key, apiKey)) throw invalidApiKey();
  if (row.r_deactivated === 1) throw realmDeactivated();
  if (row.is_active !== 1) throw userDeactivated();
  const { r_string_id, r_name, r_description, r_settings, r_deactivated, r_date_created, ...user } = row;
  const realm: RealmRow = {
    id: user.realm_id, string_id: r_string_id, name: r_name, description: r_description,
    settings: r_settings, deactivated: r_deactivated, date_created: r_date_created,
  };
  remember(userCache, key, version, { user, realm });
  remember(headerCache, `${host ?? ''}\n${header}`, version, { user, realm });
  return { user, realm };
}
