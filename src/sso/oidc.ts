import * as client from 'openid-client';
import type { OidcConfig } from '../lib/sso-config.js';
import { SsoRefusal, type ExternalIdentity } from '../actions/external-login.js';

/**
 * OpenID Connect through openid-client (authorization code, PKCE S256, state, nonce). Every
 * check of the provider's answer (issuer, audience, expiry, nonce, and the ID token's
 * signature against the provider's JWKS) is the library's; this file maps its errors to
 * refusals a person can read. https issuers with a private CA: Node's fetch honours
 * NODE_EXTRA_CA_CERTS, nothing to do here.
 */

/** What the callback needs back from the start: kept server-side in the flow, never in the browser. */
export interface OidcFlowData {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const OIDC_SCOPE = 'openid email profile';

/** A provider that does not answer within this is down for this sign-in (the library's default is 30 s). */
const DISCOVERY_TIMEOUT_SECS = 10;

// One discovery per provider and process; a failed one is forgotten so that the next sign-in retries.
const discovered = new Map<string, Promise<client.Configuration>>();

export async function oidcConfiguration(cfg: OidcConfig): Promise<client.Configuration> {
  const key = JSON.stringify([cfg.issuer, cfg.clientId, cfg.clientSecret]);
  let pending = discovered.get(key);
  if (!pending) {
    pending = discover(cfg);
    discovered.set(key, pending);
    pending.catch(() => discovered.delete(key));
  }
  return pending;
}

async function discover(cfg: OidcConfig): Promise<client.Configuration> {
  const insecure = new URL(cfg.issuer).protocol === 'http:';
  // Plain http only for an http issuer (a test provider on loopback): the library refuses it otherwise.
  const execute = insecure ? [client.allowInsecureRequests] : [];
  let found: client.Configuration;
  try {
    found = await client.discovery(new URL(cfg.issuer), cfg.clientId, cfg.clientSecret, undefined, { execute, timeout: DISCOVERY_TIMEOUT_SECS });
  } catch (err) {
    throw new SsoRefusal('provider_error', `${cfg.name} cannot be reached to sign you in right now. Try again in a few minutes, or ask an administrator.`,
      { backend: 'oidc', step: 'discovery', ...libraryError(err) });
  }
  // The spec's default token endpoint authentication is client_secret_basic; some providers offer only _post.
  const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
  const auth = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(cfg.clientSecret) : client.ClientSecretPost(cfg.clientSecret);
  const config = new client.Configuration(found.serverMetadata(), cfg.clientId, cfg.clientSecret, auth);
  if (insecure) client.allowInsecureRequests(config);
  // The ID token arrives over TLS from the token endpoint, which the library would take as
  // proof enough; its signature is checked against the provider's JWKS all the same (issue 34).
  client.enableNonRepudiationChecks(config);
  return config;
}

/** The provider's authorization URL for a new sign-in, and what its callback will check. */
export async function beginOidc(cfg: OidcConfig, redirectUri: string): Promise<{ url: string; data: OidcFlowData }> {
  const config = await oidcConfiguration(cfg);
  const data: OidcFlowData = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: OIDC_SCOPE,
    response_type: 'code',
    state: data.state,
    nonce: data.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(data.codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, data };
}

/**
 * The provider's answer at the redirect URI (`currentUrl`: the redirect URI with the query
 * it came with): the code traded for tokens, the ID token checked, the person it names.
 */
export async function completeOidc(cfg: OidcConfig, currentUrl: URL, data: OidcFlowData): Promise<ExternalIdentity> {
  const config = await oidcConfiguration(cfg);
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: data.codeVerifier, expectedState: data.state, expectedNonce: data.nonce, idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) throw new SsoRefusal('invalid_response', `${cfg.name} sent no ID token.`, { backend: 'oidc' });
    claims = { ...idToken };
    // Providers that keep profile claims out of the ID token of a code flow (oidc-provider,
    // some Okta setups) give them at userinfo, for the same subject.
    if (typeof claims.email !== 'string' && tokens.access_token) {
      const info = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...info, ...idToken };
    }
  } catch (err) {
    if (err instanceof SsoRefusal) throw err;
    throw refusalFor(cfg, err);
  }
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (!email) throw new SsoRefusal('invalid_response', `${cfg.name} did not tell Parley your email address (the "email" scope).`, { backend: 'oidc' });
  return { backend: 'oidc', email, emailVerified: emailVerified(cfg, claims.email_verified), fullName: fullName(claims) };
}

/**
 * email_verified true. A provider that never sends the claim (Entra ID) is believed only
 * when the operator says its addresses are the organization's own (PARLEY_OIDC_TRUST_EMAIL);
 * an explicit false is refused whatever the setting.
 */
function emailVerified(cfg: OidcConfig, claim: unknown): boolean {
  if (claim === true || claim === 'true') return true;
  return claim === undefined && cfg.trustEmail;
}

function fullName(claims: Record<string, unknown>): string | null {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const name = str(claims.name);
  if (name) return name;
  const parts = [str(claims.given_name), str(claims.family_name)].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(' ') : null;
}

/**
 * What of a library error may be logged: its code, messages and the name of a claim that
 * failed, never a token or a value. openid-client wraps oauth4webapi's error (the precise
 * message) in its own (the generic one).
 */
function libraryError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) };
  const out: Record<string, unknown> = { error: err.message };
  const coded = err as Error & { code?: unknown; error?: unknown; status?: unknown };
  if (typeof coded.code === 'string') out.code = coded.code;
  if (typeof coded.error === 'string') out.oauthError = coded.error;
  if (typeof coded.status === 'number') out.status = coded.status;
  const inner = innerError(err);
  if (inner !== err) out.detail = inner.message;
  const cause = inner.cause;
  if (cause && typeof cause === 'object' && 'claim' in cause && typeof cause.claim === 'string') out.claim = cause.claim;
  return out;
}

const innerError = (err: Error): Error => (err.cause instanceof Error ? err.cause : err);

/** The library's objection to the provider's answer, as the person reads it. */
function refusalFor(cfg: OidcConfig, err: unknown): SsoRefusal {
  const log = { backend: 'oidc', step: 'callback', ...libraryError(err) };
  if (err instanceof client.AuthorizationResponseError) {
    // The provider's own "no" (access_denied when the person cancels or is not assigned the app).
    const why = err.error === 'access_denied' ? 'the sign-in was cancelled or refused there' : `it answered ${err.error}`;
    return new SsoRefusal('invalid_response', `${cfg.name} did not sign you in: ${why}. Start again from the sign-in page.`, log);
  }
  if (err instanceof client.ResponseBodyError) {
    // The token endpoint refused the code: used before, expired, or not this sign-in's (PKCE).
    return new SsoRefusal('invalid_response', `${cfg.name} refused to complete this sign-in (${err.error}). Start again from the sign-in page.`, log);
  }
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('OAUTH_')) {
    if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') {
      return new SsoRefusal('expired', `The answer from ${cfg.name} has expired. Start again from the sign-in page.`, log);
    }
    if (err instanceof Error && /"state"/.test(innerError(err).message)) {
      return new SsoRefusal('bad_state', 'This sign-in did not begin in this browser. Start again from the sign-in page.', log);
    }
    return new SsoRefusal('invalid_response', `The answer from ${cfg.name} failed Parley's checks, so it cannot sign you in. Start again from the sign-in page, or ask an administrator.`, log);
  }
  // Anything else is the way there failing (connection refused, timeout, TLS).
  return new SsoRefusal('provider_error', `${cfg.name} cannot be reached to finish signing you in. Try again in a few minutes.`, log);
}
