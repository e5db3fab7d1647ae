import { useState } from 'preact/hooks';
import { ApiError, login } from '../api';
import { ProviderButtons, useSignInSettings } from './SignInMethods';
import { t } from '../i18n';

/**
 * Email (or directory username) and password, and a button per identity provider; the
 * server answers with the session cookies, and the page starts over signed in.
 */
export function Login({ onSignedIn }: { onSignedIn: () => void }) {
  const settings = useSignInSettings();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email.trim(), password);
      onSignedIn();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('Could not reach the server. Try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="login-box" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">{t('Sign in to Parley')}</h1>
        {settings && <ProviderButtons methods={settings.external_authentication_methods} />}
        {settings?.authentication_methods.password !== false && (
          <>
            {settings && settings.external_authentication_methods.length > 0 && <p class="sso-or">{t('or')}</p>}
            <label>
              {settings?.require_email_format_usernames === false ? t('Email or username') : t('Email')}
              {settings?.require_email_format_usernames === false
                ? <input type="text" name="username" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
                : <input type="email" name="username" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
            </label>
            <label>
              {t('Password')}
              <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            </label>
            {error && <p class="error" role="alert">{error}</p>}
            <button type="submit" disabled={busy}>{busy ? t('Signing in…') : t('Sign in')}</button>
          </>
        )}
      </form>
    </main>
  );
}
