import { logout } from '../api';
import { useStore } from '../hooks';
import { ui } from '../keys';
import { Compose } from './Compose';
import { Feed } from './Feed';
import { Help } from './Help';
import { Invites } from './Invites';
import { LeftSidebar } from './LeftSidebar';
import { RightSidebar } from './RightSidebar';
import { Search } from './Search';
import { lazy, Suspense } from 'preact/compat';
import { special, type SpecialView as ViewName } from '../special-view';
import { NotifyBanner } from './NotifyBanner';
import { OnDemand } from './OnDemand';
import { t } from '../i18n';
import { openStatus, people } from '../people';
import { panelClass, PanelBackdrop, PanelToggle } from './Panels';

/** The Organization panel (administrators and owners): a chunk of its own, loaded when opened. */
const loadAdmin = () => import('./admin/Admin');
/** Profile cards and the set-status dialog: a chunk of their own. */
const loadPeople = () => import('./UserCard');
/** The stream settings (browse, create, each stream's settings): a chunk of their own. */
const loadStreams = () => import('./streams/StreamSettings');

// Personal settings: a chunk of their own, fetched when first opened.
const SettingsPanel = lazy(() => import('./SettingsPanel'));

// Inbox, Recent conversations and Drafts: each a chunk of its own, in place of the feed.
const VIEWS = {
  inbox: lazy(() => import('./views/Inbox')),
  recent: lazy(() => import('./views/Recent')),
  drafts: lazy(() => import('./views/Drafts')),
};

const CONN_TEXT = () => ({ connecting: t('Connecting…'), live: '', offline: t('Offline: trying to reconnect…') });

export function App() {
  const store = useStore();
  const s = store.state!;
  const me = s.usersById.get(s.me);
  const toggle = (k: keyof typeof ui, on: boolean) => {
    ui[k] = on;
    store.changed();
  };
  return (
    <div class={`app ${panelClass()}`}>
      <header class="top">
        <PanelToggle side="left" />
        <span class="brand">{s.reg.realm_name ?? t('Parley')}</span>
        <Search />
        <span class={`conn ${store.conn}`} role="status">{CONN_TEXT()[store.conn]}</span>
        <div class="top-actions" id="top-actions">
        <button class="link-button" onClick={() => toggle('help', true)} aria-label={t('Keyboard shortcuts')}>?</button>
        {s.reg.is_admin === true && <button class="link-button" onClick={() => toggle('invites', true)}>{t('Invite people')}</button>}
        {s.reg.is_admin === true && <button class="link-button admin-entry" onClick={() => toggle('admin', true)}>{t('Organization')}</button>}
        <button class="link-button set-status-entry" onClick={(e) => openStatus(e.currentTarget)}>{t('Set status')}</button>
        <button class="link-button" onClick={() => toggle('settings', true)}>{me?.full_name ?? t('Settings')}</button>
        <button class="link-button" onClick={() => logout().finally(() => location.assign('/login'))}>{t('Sign out')}</button>
        </div>
        <PanelToggle side="right" />
        <PanelToggle side="menu" />
      </header>
      <LeftSidebar onNewStream={() => toggle('streams', true)} />
      <main class="middle">
        {store.flash && <p class="flash" role="alert" onClick={() => { store.flash = null; store.changed(); }}>{store.flash}</p>}
        <NotifyBanner />
        {special.view === null ? <Feed /> : <SpecialView view={special.view} />}
        <Compose />
      </main>
      <RightSidebar />
      <PanelBackdrop />
      {ui.help && <Help close={() => toggle('help', false)} />}
      {ui.settings && <Suspense fallback={<div class="modal" aria-busy="true" />}><SettingsPanel close={() => toggle('settings', false)} /></Suspense>}
      {ui.streams && <OnDemand load={loadStreams} props={{ close: () => toggle('streams', false) }} />}
      {ui.invites && <Invites close={() => toggle('invites', false)} />}
      {ui.admin && s.reg.is_admin === true && <OnDemand load={loadAdmin} props={{ close: () => toggle('admin', false) }} />}
      {(people.card !== null || people.status) && <OnDemand load={loadPeople} props={{}} />}
    </div>
  );
}

function SpecialView({ view }: { view: ViewName }) {
  const View = VIEWS[view];
  return <Suspense fallback={<p class="special-view" role="status">{t('Loading…')}</p>}><View /></Suspense>;
}
