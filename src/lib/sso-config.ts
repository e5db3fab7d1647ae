import fs from 'node:fs';
import { readSamlConfig } from './saml-config.js';

/**
 * Single sign-on settings (issue 34), read once at start from the environment. Each method
 * is off unless its settings are complete: a half-configured method refuses to start the
 * server rather than show a button that cannot work.
 */

export interface OidcConfig {
  /** The provider's issuer URL; its discovery document is at <issuer>/.well-known/openid-configuration. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Shown on the button ("Sign in with NAME") and as the method's display_name. */
  name: string;
  /** An absolute URL of an icon for the button (Zulip's display_icon), or null. */
  icon: string | null;
  /** Create an account for a verified person who has none (Zulip's auto_signup). */
  autoSignup: boolean;
  /** An ID token without email_verified counts as verified (providers that never send it, such as Entra ID). */
  trustEmail: boolean;
}

export interface LdapConfig {
  /** ldap:// (then StartTLS unless startTls is false) or ldaps://. */
  url: string;
  /** StartTLS on an ldap:// URL (PARLEY_LDAP_START_TLS, default true). */
  startTls: boolean;
  bindDn: string | null;
  bindPassword: string | null;
  userSearchBase: string;
  /** With `{username}` where the escaped (RFC 4515) username goes. */
  userFilter: string;
  emailAttr: string;
  nameAttr: string;
  autoSignup: boolean;
  /**
   * PEM certificates to trust for the directory's TLS besides Node's (the file named by
   * PARLEY_LDAP_CA_CERT); NODE_EXTRA_CA_CERTS works as well.
   */
  ca: string | null;
}

/** Where a SAML identity provider signs people in, and the certificates its signatures must verify with. */
export interface SamlIdpEndpoint {
  /** The IdP's entity id: an assertion's Issuer must be this. */
  entityId: string;
  /** Its single sign-on URL (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Its signing certificates, PEM. */
  certs: string[];
}

/** The attribute names a provider's assertion carries the person's details under (Zulip's attr_* keys). */
export interface SamlAttributeNames {
  email: string;
  /** One attribute with the whole name (Parley's addition); else first and last name are joined. */
  fullName: string | null;
  firstName: string;
  lastName: string;
}

/**
 * One SAML identity provider of PARLEY_SAML_IDPS (src/lib/saml-config.ts reads the file and
 * says its format). `name` is its part of the URLs (/accounts/login/social/saml/<name>).
 */
export interface SamlIdpConfig {
  name: string;
  displayName: string;
  icon: string | null;
  autoSignup: boolean;
  /** The entity id, SSO URL and certificates as configured, or the metadata URL to read them from at first use. */
  endpoint: SamlIdpEndpoint | { metadataUrl: string; entityId: string | null };
  attrs: SamlAttributeNames;
  /** The rest of its entry, as saml-config.ts checked it. */
  settings: Record<string, unknown>;
}

/** Parley as a SAML service provider. */
export interface SamlSpConfig {
  /** Zulip's SOCIAL_AUTH_SAML_SP_ENTITY_ID; null: the server's external URL. */
  entityId: string | null;
  /** A key (PEM) to sign AuthnRequests with, and its certificate for the SP metadata; both or neither. */
  privateKey: string | null;
  certificate: string | null;
  /** Also require the Response around the assertion to be signed (default: the assertion's signature suffices). */
  wantResponseSigned: boolean;
}

export interface SamlConfig {
  /** The JSON file the providers came from (PARLEY_SAML_IDPS). */
  file: string;
  idps: SamlIdpConfig[];
  sp: SamlSpConfig;
}

export interface SsoConfig {
  /** PARLEY_PASSWORD_AUTH: off leaves only the methods below (Zulip's EmailAuthBackend removed). */
  passwordAuth: boolean;
  oidc: OidcConfig | null;
  saml: SamlConfig | null;
  ldap: LdapConfig | null;
}

type Env = Record<string, string | undefined>;

const val = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
};

function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = val(env, name)?.toLowerCase();
  if (v === undefined) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no'].includes(v)) return false;
  throw new Error(`${name} must be true or false (on or off), got '${v}'`);
}

function httpUrl(name: string, v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new Error(`${name}: '${v}' is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`${name}: '${v}' is not an http(s) URL`);
  return v.replace(/\/+$/, '');
}

/** All of a method's settings, or none: which ones are missing is the operator's next step. */
function allOrNone(env: Env, method: string, names: string[]): boolean {
  const missing = names.filter((n) => val(env, n) === undefined);
  if (missing.length === names.length) return false;
  if (missing.length > 0) throw new Error(`${method} needs ${missing.join(', ')} as well (or none of its settings)`);
  return true;
}

function parseOidc(env: Env): OidcConfig | null {
  if (!allOrNone(env, 'OpenID Connect', ['PARLEY_OIDC_ISSUER', 'PARLEY_OIDC_CLIENT_ID', 'PARLEY_OIDC_CLIENT_SECRET'])) return null;
  const icon = val(env, 'PARLEY_OIDC_ICON');
  return {
    issuer: httpUrl('PARLEY_OIDC_ISSUER', val(env, 'PARLEY_OIDC_ISSUER')!),
    clientId: val(env, 'PARLEY_OIDC_CLIENT_ID')!,
    clientSecret: val(env, 'PARLEY_OIDC_CLIENT_SECRET')!,
    name: val(env, 'PARLEY_OIDC_NAME') ?? 'OpenID Connect',
    icon: icon === undefined ? null : httpUrl('PARLEY_OIDC_ICON', icon),
    autoSignup: bool(env, 'PARLEY_OIDC_AUTO_SIGNUP', false),
    trustEmail: bool(env, 'PARLEY_OIDC_TRUST_EMAIL', false),
  };
}

function parseLdap(env: Env): LdapConfig | null {
  if (!allOrNone(env, 'LDAP', ['PARLEY_LDAP_URL', 'PARLEY_LDAP_USER_SEARCH_BASE'])) return null;
  const url = val(env, 'PARLEY_LDAP_URL')!;
  if (!/^ldaps?:\/\//i.test(url)) throw new Error(`PARLEY_LDAP_URL: '${url}' is not an ldap:// or ldaps:// URL`);
  const filter = val(env, 'PARLEY_LDAP_USER_FILTER') ?? '(uid={username})';
  if (!filter.includes('{username}')) throw new Error(`PARLEY_LDAP_USER_FILTER: '${filter}' has no {username}`);
  const bindDn = val(env, 'PARLEY_LDAP_BIND_DN') ?? null;
  const bindPassword = env.PARLEY_LDAP_BIND_PASSWORD ?? null;
  if (bindDn !== null && bindPassword === null) throw new Error('PARLEY_LDAP_BIND_DN needs PARLEY_LDAP_BIND_PASSWORD as well');
  return {
    url,
    startTls: /^ldap:/i.test(url) && bool(env, 'PARLEY_LDAP_START_TLS', true),
    bindDn,
    bindPassword,
    userSearchBase: val(env, 'PARLEY_LDAP_USER_SEARCH_BASE')!,
    userFilter: filter,
    emailAttr: val(env, 'PARLEY_LDAP_EMAIL_ATTR') ?? 'mail',
    nameAttr: val(env, 'PARLEY_LDAP_NAME_ATTR') ?? 'cn',
    autoSignup: bool(env, 'PARLEY_LDAP_AUTO_SIGNUP', false),
    ca: readCa(val(env, 'PARLEY_LDAP_CA_CERT')),
  };
}

function readCa(file: string | undefined): string | null {
  if (file === undefined) return null;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`PARLEY_LDAP_CA_CERT: cannot read '${file}': ${(err as Error).message}`, { cause: err });
  }
}

export function parseSsoConfig(env: Env = process.env): SsoConfig {
  const samlFile = val(env, 'PARLEY_SAML_IDPS');
  const sso: SsoConfig = {
    passwordAuth: bool(env, 'PARLEY_PASSWORD_AUTH', true),
    oidc: parseOidc(env),
    saml: samlFile === undefined ? null : readSamlConfig(samlFile),
    ldap: parseLdap(env),
  };
  if (!sso.passwordAuth && !sso.oidc && !sso.saml && !sso.ldap) {
    throw new Error('PARLEY_PASSWORD_AUTH=off leaves no way to sign in: configure OpenID Connect, SAML or LDAP first');
  }
  return sso;
}

/**
 * Zulip's password_auth_enabled: a password form is of use, Parley's own passwords
 * (EmailAuthBackend) or the directory's (LDAP).
 */
export const passwordFormEnabled = (sso: SsoConfig): boolean => sso.passwordAuth || sso.ldap !== null;

/** No single sign-on, passwords on: what tests and tools start with. */
export const NO_SSO: SsoConfig = { passwordAuth: true, oidc: null, saml: null, ldap: null };
