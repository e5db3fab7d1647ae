import type { AppContext } from '../context.js';
import { ssoTokens } from '../store/repos/sso-tokens.js';
import { writeAlone } from './transaction.js';
import { generateApiKey } from '../lib/secrets.js';
import { sessionIdHash } from '../lib/session-ids.js';
import { nowSeconds } from '../lib/time.js';

/**
 * What single sign-on keeps between two requests:
 * - 'flow': a sign-in begun (where to return, the app's one-time pad, the provider's state);
 * - 'login': Zulip's ExternalAuthResult login token, a desktop app's way into a session;
 * - 'saml-assertion': an assertion already used (its id), so a replay is refused.
 */
export type SsoPurpose = 'flow' | 'login' | 'saml-assertion';

/** Zulip's ExternalAuthResult.LOGIN_KEY_EXPIRATION_SECONDS: a login token is a hand-over, not a credential to keep. */
export const LOGIN_TOKEN_TTL_SECS = 15;

/** Keeps `data` under a new random token (API-key format, as Zulip's login tokens) and answers the token. */
export async function saveSsoToken(ctx: AppContext, purpose: SsoPurpose, realmId: number, data: unknown, ttlSecs: number): Promise<string> {
  const token = generateApiKey();
  const now = nowSeconds();
  // Old rows go as new ones are made: no timer to own.
  await writeAlone(ctx, (tx) => ssoTokens.deleteExpired(tx.db, now));
  await writeAlone(ctx, (tx) => ssoTokens.insertIfAbsent(tx.db, {
    id_hash: sessionIdHash(token), purpose, realm_id: realmId, data: JSON.stringify(data), expires: now + ttlSecs,
  }));
  return token;
}

/** The data kept under `token`, once: it is deleted as it is read. Unknown, used or expired: undefined. */
export async function takeSsoToken<T>(ctx: AppContext, purpose: SsoPurpose, token: string): Promise<{ realmId: number; data: T } | undefined> {
  if (token.length > 200) return undefined;
  const row = await writeAlone(ctx, (tx) => ssoTokens.deleteReturning(tx.db, sessionIdHash(token), purpose));
  if (!row || Number(row.expires) < nowSeconds()) return undefined;
  return { realmId: row.realm_id, data: JSON.parse(row.data) as T };
}

/** Records that `key` was used, until `expires` (seconds): false if it already was (a replay). */
export async function useSsoSecretOnce(ctx: AppContext, purpose: SsoPurpose, realmId: number, key: string, expires: number): Promise<boolean> {
  return writeAlone(ctx, (tx) => ssoTokens.insertIfAbsent(tx.db, {
    id_hash: sessionIdHash(`${purpose}:${key}`), purpose, realm_id: realmId, data: '{}', expires,
  }));
}
