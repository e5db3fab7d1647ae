/**
 * Zulip's request for notification permission: a banner with a button (a browser asks only
 * when the person pressed something), shown while the browser has not been asked and desktop
 * notifications are on; "Never ask on this computer" hides it for good in this browser.
 */
import { useState } from 'preact/hooks';
import { useStore } from '../hooks';
import { t } from '../i18n';
import { permission, requestPermission, userSettings } from '../notify';

const KEY = 'parley.notifications-banner';

export function NotifyBanner() {
  const s = useStore().state!;
  const [hidden, setHidden] = useState(() => localStorage.getItem(KEY) === 'never');
  if (hidden || permission() !== 'default' || userSettings(s).enable_desktop_notifications !== true) return null;
  return (
    <div class="notify-banner" role="region" aria-label={t('Desktop notifications')}>
      <span>{t('Parley needs your permission to show desktop notifications.')}</span>
      <button type="button" onClick={() => void requestPermission().then(() => setHidden(permission() !== 'default'))}>{t('Enable desktop notifications')}</button>
      <button type="button" class="link-button" onClick={() => { localStorage.setItem(KEY, 'never'); setHidden(true); }}>{t('Never ask on this computer')}</button>
    </div>
  );
}
