/** Light, dark, or the system's choice (the default): a data-theme attribute the CSS reads. */
export type Theme = 'system' | 'light' | 'dark';
const KEY = 'parley.theme';

export const savedTheme = (): Theme => (localStorage.getItem(KEY) as Theme | null) ?? 'system';

export function applyTheme(t: Theme = savedTheme()): void {
  localStorage.setItem(KEY, t);
  if (t === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.dataset.theme = t;
}
