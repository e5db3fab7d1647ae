import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { t } from '../i18n';

export type ExternalMethod = { name: string; display_name: string; display_icon: string | null; login_url: string; signup_url: string };
export type SignInSettings = {
  authentication_methods: { password: boolean; email: boolean; ldap: boolean };
  external_authentication_methods: ExternalMethod[];
  require_email_format_usernames: boolean;
};

/** How this organization signs people in (server_settings): the password form, and the identity providers' buttons. */
export function useSignInSettings(): SignInSettings | null {
  const [settings, setSettings] = useState<SignInSettings | null>(null);
  useEffect(() => {
    // Unreachable settings: the password form alone, as before single sign-on existed.
    call<SignInSettings>('GET', '/server_settings', {}, { prefix: '/api/v1' }).then(setSettings, () => setSettings({
      authentication_methods: { password: true, email: true, ldap: false }, external_authentication_methods: [], require_email_format_usernames: true,
    }));
  }, []);
  return settings;
}

/** One button per identity provider; `next` says where the web app goes afterwards. */
export function ProviderButtons({ methods, signup = false }: { methods: ExternalMethod[]; signup?: boolean }) {
  if (methods.length === 0) return null;
  const next = `${location.pathname}${location.hash}`;
  return (
    <div class="sso-buttons">
      {methods.map((m) => {
        const url = `${signup ? m.signup_url : m.login_url}?next=${encodeURIComponent(next === '/login' ? '/' : next)}`;
        return (
          <a key={m.name} class="sso-button" href={url}>
            {m.display_icon && <img src={m.display_icon} alt="" width={20} height={20} />}
            {signup ? t('Sign up with {name}', { name: m.display_name }) : t('Sign in with {name}', { name: m.display_name })}
          </a>
        );
      })}
    </div>
  );
}
