/**
 * Boot: register (which also tells whether this browser is signed in), render, follow the
 * address bar's narrow, then keep the event queue polling.
 */
import { render } from 'preact';
import { post } from './api';
import { App } from './components/App';
import { Join } from './components/Join';
import { Login } from './components/Login';
import { installShortcuts } from './keys';
import { onRegister, poll, register, SignedOut } from './live';
import './outbox';
import { store } from './store';
import { applyTheme } from './theme';
import { loadCatalog } from './emoji';
import { followHash, refetch } from './view';
import { setLanguage } from './i18n';
import { installNotifications } from './notify';
import { installSettingsSync } from './settings-sync';
import './styles.css';

const root = document.getElementById('app')!;

function showLogin(): void {
  if (location.pathname !== '/login') history.replaceState(null, '', '/login');
  // Nobody to ask yet: the browser's language.
  void setLanguage(navigator.language).finally(() => render(<Login onSignedIn={() => location.assign('/')} />, root));
}

/** Our own presence, as Zulip's web app reports it every minute while the page is open. */
function reportPresence(): void {
  const ping = () => post('/users/me/presence', { status: document.visibilityState === 'visible' ? 'active' : 'idle', new_user_input: true }).catch(() => {});
  void ping();
  setInterval(ping, 60_000);
}

async function boot(): Promise<void> {
  applyTheme();
  // An invitation link: the sign-up page, whoever is signed in.
  const join = /^\/join\/([^/]+)\/?$/.exec(location.pathname);
  if (join) {
    await setLanguage(navigator.language);
    return render(<Join inviteKey={decodeURIComponent(join[1]!)} />, root);
  }
  try {
    await register();
  } catch (e) {
    if (e instanceof SignedOut) return showLogin();
    root.textContent = 'Could not reach the server; retrying…';
    setTimeout(boot, 2000);
    return;
  }
  if (location.pathname !== '/') history.replaceState(null, '', `/${location.hash}`);
  store.conn = 'live';
  const reg = store.state!.reg as { user_settings?: { default_language?: string }; default_language?: string };
  await setLanguage(reg.user_settings?.default_language ?? reg.default_language);
  installSettingsSync();
  render(<App />, root);
  installNotifications();
  installShortcuts();
  followHash();
  addEventListener('popstate', followHash);
  addEventListener('hashchange', followHash);
  // A new queue means missed events: what is shown is fetched again.
  onRegister(refetch);
  store.subscribe(() => {
    if (store.signedOut) showLogin();
  });
  reportPresence();
  void poll();
  // The emoji catalog (its own chunk) once the page is idle, for :emoji: autocomplete.
  const idle = (window as { requestIdleCallback?: (f: () => void) => void }).requestIdleCallback ?? ((f: () => void) => setTimeout(f, 1000));
  idle(() => void loadCatalog().catch(() => {}));
}

void boot();
