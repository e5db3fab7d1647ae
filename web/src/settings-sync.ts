/**
 * Personal settings that change the page itself, applied whichever tab (or client) changed
 * them: `default_language` switches the app's language, `color_scheme` its theme (Zulip's
 * 1 automatic, 2 dark, 3 light). They arrive as user_settings update events.
 */
import { setLanguage } from './i18n';
import { onEvents } from './live';
import { userSettings } from './notify';
import { store } from './store';
import { applyTheme, type Theme } from './theme';

export const COLOR_SCHEMES: Record<number, Theme> = { 1: 'system', 2: 'dark', 3: 'light' };

export async function switchLanguage(language: string): Promise<void> {
  await setLanguage(language);
  store.changed();
}

export function installSettingsSync(): void {
  // The account's choice (made on any device) wins over this browser's, unless it is "automatic".
  const scheme = Number(userSettings(store.state!).color_scheme ?? 1);
  if (scheme !== 1 && COLOR_SCHEMES[scheme]) applyTheme(COLOR_SCHEMES[scheme]);
  onEvents((events) => {
    for (const e of events) {
      if (e.type !== 'user_settings' || (e as { op?: string }).op !== 'update') continue;
      const { property, value } = e as unknown as { property: string; value: unknown };
      if (property === 'default_language') void switchLanguage(String(value));
      if (property === 'color_scheme' && COLOR_SCHEMES[Number(value)]) applyTheme(COLOR_SCHEMES[Number(value)]);
    }
  });
}
