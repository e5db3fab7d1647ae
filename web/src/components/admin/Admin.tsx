/**
 * The "Organization" panel of administrators and owners, as Zulip's settings overlay: a list
 * of screens on the left (a row of tabs on a phone), the chosen one on the right. Loaded on
 * demand (its own chunk). Every change goes through the API, which refuses what the
 * viewer's role or the organization's policies do not allow; the screens show its words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { ui } from '../../keys';
import Bots from './Bots';
import DefaultStreams from './DefaultStreams';
import Integrations from './Integrations';
import OrgSettings from './OrgSettings';
import UserDefaults from './UserDefaults';
import Users from './Users';
import { OnDemand } from '../OnDemand';
import './admin.css';

// Each of these screens is a chunk of its own, loaded when its tab is chosen.
const loadGroups = () => import('./UserGroups');
const loadFields = () => import('./ProfileFields');
const loadEmoji = () => import('./Emoji');
const loadLinkifiers = () => import('./Linkifiers');
const loadPlaygrounds = () => import('./Playgrounds');

type Tab = 'profile' | 'settings' | 'permissions' | 'default-streams' | 'user-defaults' | 'users' | 'bots' | 'integrations' | 'user-groups' | 'profile-fields' | 'emoji' | 'linkifiers' | 'playgrounds';

const TABS = (): Array<[Tab, string]> => [
  ['profile', t('Organization profile')],
  ['settings', t('Organization settings')],
  ['permissions', t('Organization permissions')],
  ['default-streams', t('Default streams')],
  ['user-defaults', t('Default user settings')],
  ['users', t('Users')],
  ['bots', t('Bots')],
  ['integrations', t('Integrations')],
  ['user-groups', t('User groups')],
  ['profile-fields', t('Custom profile fields')],
  ['emoji', t('Custom emoji')],
  ['linkifiers', t('Linkifiers')],
  ['playgrounds', t('Code playgrounds')],
];

export default function Admin({ close, initial = 'profile' }: { close: () => void; initial?: Tab }) {
  const store = useStore();
  const [tab, setTab] = useState<Tab>(initial);
  const tabs = useRef<HTMLDivElement>(null);
  const focusTab = (k: Tab) => tabs.current?.querySelector<HTMLElement>(`[data-tab="${k}"]`)?.focus();
  useEffect(() => {
    focusTab(tab);
    return () => document.querySelector<HTMLElement>('.admin-entry')?.focus();
  }, []);
  const list = TABS();
  const onKey = (e: KeyboardEvent) => {
    const i = list.findIndex(([k]) => k === tab);
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
    let next: Tab | undefined;
    if (step) next = list[(i + step + list.length) % list.length]![0];
    else if (e.key === 'Home') next = list[0]![0];
    else if (e.key === 'End') next = list[list.length - 1]![0];
    if (!next) return;
    e.preventDefault();
    setTab(next);
    focusTab(next);
  };
  const openInvites = () => {
    close();
    ui.invites = true;
    store.changed();
  };
  const title = list.find(([k]) => k === tab)![1];
  return (
    <div class="modal admin-modal" role="dialog" aria-modal="true" aria-labelledby="admin-title">
      <div class="modal-box admin-box">
        <header class="admin-head">
          <h2 id="admin-title">{t('Organization')}</h2>
          <button class="admin-close" onClick={close} aria-label={t('Close')}>×</button>
        </header>
        <div class="admin-body">
          <div class="admin-tabs" role="tablist" aria-label={t('Organization')} aria-orientation="vertical" ref={tabs} onKeyDown={onKey}>
            {list.map(([k, label]) => (
              <button key={k} role="tab" id={`admin-tab-${k}`} data-tab={k} aria-selected={k === tab} aria-controls="admin-panel"
                tabIndex={k === tab ? 0 : -1} onClick={() => setTab(k)}>{label}</button>
            ))}
          </div>
          <div class="admin-panel" id="admin-panel" role="tabpanel" aria-labelledby={`admin-tab-${tab}`} tabIndex={0}>
            <h2 class="admin-panel-title">{title}</h2>
            {tab === 'profile' || tab === 'settings' || tab === 'permissions' ? <OrgSettings key={tab} group={tab} />
              : tab === 'default-streams' ? <DefaultStreams />
              : tab === 'user-defaults' ? <UserDefaults />
              : tab === 'users' ? <Users openInvites={openInvites} />
              : tab === 'bots' ? <Bots />
              : tab === 'user-groups' ? <OnDemand load={loadGroups} props={{}} inline />
              : tab === 'profile-fields' ? <OnDemand load={loadFields} props={{}} inline />
              : tab === 'emoji' ? <OnDemand load={loadEmoji} props={{}} inline />
              : tab === 'linkifiers' ? <OnDemand load={loadLinkifiers} props={{}} inline />
              : tab === 'playgrounds' ? <OnDemand load={loadPlaygrounds} props={{}} inline />
              : <Integrations openBots={() => setTab('bots')} />}
          </div>
        </div>
      </div>
    </div>
  );
}
