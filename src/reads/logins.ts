import type { Q, RealmRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { cachesOf, type Login } from '../cache/index.js';
import type { Versioned } from '../cache/versioned-cache.js';

/**
 * The realm and user rows behind a login, kept until a user or realm changes (cache/):
 * authentication ran a query on every request and was most of the cost of a simple GET.
 */
export const realmBySubdomain = (db: Q, subdomain: string): Promise<RealmRow | undefined> =>
  cachesOf(db).realmsBySubdomain.load(subdomain, () => realms.findByStringId(db, subdomain));

/** The login behind this email on this subdomain, with the version it was read at; undefined when no such user. */
export async function loginByEmail(db: Q, subdomain: string, email: string): Promise<Versioned<Login> | undefined> {
  const cache = cachesOf(db).loginsByEmail;
  const key = `${subdomain}\n${email.toLowerCase()}`;
  const hit = cache.entry(key);
  if (hit) return hit;
  const version = cache.version();
  const row = await users.findLogin(db, subdomain, email);
  if (!row) return undefined;
  const entry = { version, value: row };
  // Only logins that exist are kept; the caller checks the key and the account's state.
  cache.set(key, row, version);
  return entry;
}

/** A login this exact header on this exact host was verified as, if still current: no promise, no decoding. */
export const verifiedHeader = (db: Q, hostAndHeader: string): Login | undefined => cachesOf(db).loginsByHeader.get(hostAndHeader);

/** Remembers a verified header under the version its login was read at: a change since retires both. */
export const rememberVerifiedHeader = (db: Q, hostAndHeader: string, login: Versioned<Login>): void =>
  cachesOf(db).loginsByHeader.set(hostAndHeader, login.value, login.version);

/** The user whose API key this is, in this organization (incoming webhooks name no email). */
export const userByApiKey = (db: Q, realmId: number, apiKey: string) => users.findByApiKey(db, realmId, apiKey);
