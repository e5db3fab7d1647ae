import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import { ProviderButtons, useSignInSettings } from './SignInMethods';
import { t } from '../i18n';

type Invite = { realm_name: string; email: string | null; invited_as: number };

/** The invitation link's page (/join/<key>/): name and password make the account and sign in. */
export function Join({ inviteKey }: { inviteKey: string }) {
  const [invite, setInvite] = useState<Invite | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const settings = useSignInSettings();
  // Parley's own passwords off: the invitation is taken up by signing in with the identity provider.
  const passwords = settings?.authentication_methods.email !== false;
  useEffect(() => {
    call<Invite>('GET', `/accounts/invite/${encodeURIComponent(inviteKey)}`, {}, { prefix: '' }).then(setInvite, (e) => setProblem(e instanceof ApiError ? e.message : t('Could not reach the server.')));
  }, [inviteKey]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await call('POST', '/accounts/register', { key: inviteKey, full_name: name, password, email: invite?.email === null ? email : undefined }, { prefix: '' });
      location.assign('/');
    } catch (err) {
      setProblem(err instanceof ApiError ? err.message : t('Could not reach the server.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="login-box" onSubmit={submit} aria-labelledby="join-title">
        <h1 id="join-title">{invite ? t('Join {name}', { name: invite.realm_name }) : t('Join')}</h1>
        {invite && (
          <>
            {invite.email !== null ? <p>{t('Signing up as')}{' '}<strong>{invite.email}</strong></p> : (
              <label>{t('Email')}{' '}<input type="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
            )}
            {settings && <ProviderButtons methods={settings.external_authentication_methods} signup />}
            {passwords && (
              <>
                <label>{t('Full name')}{' '}<input autocomplete="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
                <label>{t('Password')}{' '}<input type="password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
                <button type="submit" disabled={busy}>{t('Sign up')}</button>
              </>
            )}
          </>
        )}
        {problem && <p class="error" role="alert">{problem}</p>}
      </form>
    </main>
  );
}
