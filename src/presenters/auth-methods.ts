import { passwordFormEnabled, type SsoConfig } from '../lib/sso-config.js';

/** One of Zulip's external_authentication_methods (server_settings): a button the apps draw. */
export interface ExternalAuthMethod {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

/** server_settings' authentication_methods, keyed as Zulip's get_auth_backends_data. */
export function serverAuthenticationMethods(sso: SsoConfig): Record<string, boolean> {
  return {
    password: passwordFormEnabled(sso), dev: false, email: sso.passwordAuth, ldap: sso.ldap !== null, remoteuser: false, github: false,
    azuread: false, gitlab: false, apple: false, google: false, saml: sso.saml !== null, 'openid connect': sso.oidc !== null,
  };
}

/** register's realm_authentication_methods: Zulip's authentication_methods_dict, keyed by backend name. */
export function realmAuthenticationMethods(sso: SsoConfig): Record<string, boolean> {
  return {
    Google: false, Email: sso.passwordAuth, GitHub: false, LDAP: sso.ldap !== null, Dev: false, RemoteUser: false,
    AzureAD: false, SAML: sso.saml !== null, GitLab: false, Apple: false, 'OpenID Connect': sso.oidc !== null,
  };
}

/** The buttons, OpenID Connect first then each SAML provider, with Zulip's URLs (relative to the organization). */
export function externalAuthenticationMethods(sso: SsoConfig): ExternalAuthMethod[] {
  const out: ExternalAuthMethod[] = [];
  if (sso.oidc) {
    out.push({
      name: 'oidc', display_name: sso.oidc.name, display_icon: sso.oidc.icon,
      login_url: '/accounts/login/social/oidc', signup_url: '/accounts/register/social/oidc',
    });
  }
  for (const idp of sso.saml?.idps ?? []) {
    out.push({
      name: `saml:${idp.name}`, display_name: idp.displayName, display_icon: idp.icon,
      login_url: `/accounts/login/social/saml/${idp.name}`, signup_url: `/accounts/register/social/saml/${idp.name}`,
    });
  }
  return out;
}
