/**
 * Narrow screens (Zulip's web app on a phone): below 768 px the left sidebar (views, streams,
 * conversations) and the top bar's text buttons, below 1024 px the right sidebar (people),
 * leave the page and become panels opened from buttons in the top bar. A panel closes when a
 * narrow is chosen in it, on Escape, and on a tap outside it. The layout itself is phone.css.
 */
import { useEffect } from 'preact/hooks';
import { t } from '../i18n';
import { store } from '../store';
import './phone.css';

type Side = 'left' | 'right' | 'menu';
export const panels = { open: null as Side | null };

const IDS: Record<Side, string> = { left: 'left-panel', right: 'right-panel', menu: 'top-actions' };
const SCOPE: Record<Side, string> = { left: '.left-sidebar', right: '.right-sidebar', menu: '.top-actions' };

/** The class the app's root carries while a panel is open. */
export const panelClass = () => (panels.open ? `${panels.open}-open` : '');

function setOpen(side: Side | null, focusBack = false): void {
  const was = panels.open;
  panels.open = side;
  store.changed();
  if (side) {
    // Into the panel, once it is drawn (keyboard users land on its first row).
    requestAnimationFrame(() => requestAnimationFrame(() => document.querySelector<HTMLElement>(`${SCOPE[side]} a, ${SCOPE[side]} button`)?.focus()));
  } else if (focusBack && was) {
    document.querySelector<HTMLElement>(`.panel-toggle.${was}`)?.focus();
  }
}

export function PanelToggle({ side }: { side: Side }) {
  const label = side === 'left' ? t('Streams and views') : side === 'right' ? t('People') : t('Menu');
  const icon = side === 'left' ? '☰' : side === 'right' ? '👥' : '⋮';
  const open = panels.open === side;
  return (
    <button type="button" class={`panel-toggle ${side}`} aria-label={label} title={label} aria-expanded={open} aria-controls={IDS[side]}
      onClick={() => setOpen(open ? null : side)}>
      <span aria-hidden="true" class={side === 'right' ? 'emoji' : ''}>{icon}</span>
    </button>
  );
}

/**
 * The shade behind an open panel (a tap on it closes the panel), and the listeners: Escape
 * closes before the app's own shortcuts see it; choosing a row or a button in a panel closes it.
 */
export function PanelBackdrop() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !panels.open) return;
      e.stopPropagation();
      e.preventDefault();
      setOpen(null, true);
    };
    const onClick = (e: MouseEvent) => {
      const side = panels.open;
      if (!side) return;
      const target = e.target as Element | null;
      if (target?.closest(`${SCOPE[side]} a, ${SCOPE[side]} button`)) setOpen(null);
    };
    window.addEventListener('keydown', onKey, true);
    // Bubbling: the row's own handler (showNarrow, opening a screen) runs first.
    document.addEventListener('click', onClick);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return panels.open ? <div class="panel-backdrop" onClick={() => setOpen(null)} /> : null;
}
