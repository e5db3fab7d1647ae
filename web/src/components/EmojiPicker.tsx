/**
 * The emoji picker: every emoji the server takes plus the organization's custom ones, by
 * category (Zulip's, Popular first and Custom last) or by a search of their names. The
 * catalog is fetched when a picker first opens (emoji.ts). Keyboard: the search box has the
 * focus; arrows (or Tab) move into the grid and around it, Enter picks, Esc closes and
 * gives the focus back to the button that opened the picker.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../hooks';
import { CUSTOM, customEmoji, glyph, loadCatalog, POPULAR, searchEmoji, type EmojiItem } from '../emoji';
import { t } from '../i18n';

const COLS = 9;
const SEARCH_LIMIT = 180;

export function EmojiPicker({ label, onPick, close, opener }: { label: string; onPick: (e: EmojiItem) => void; close: () => void; opener?: { current: HTMLElement | null } }) {
  const s = useStore().state!;
  const [catalog, setCatalog] = useState<{ categories: string[]; items: EmojiItem[] } | null>(null);
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState('Popular');
  const [active, setActive] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const grid = useRef<HTMLDivElement>(null);

  // The focus moves in as the picker mounts, before a key typed at once can miss it.
  useLayoutEffect(() => box.current?.querySelector<HTMLInputElement>('input')?.focus(), []);
  useEffect(() => {
    let live = true;
    loadCatalog().then((c) => live && setCatalog(c), () => {});
    return () => { live = false; };
  }, []);

  const custom = customEmoji(s);
  const categories = ['Popular', ...(catalog?.categories ?? []), ...(custom.length ? [CUSTOM] : [])];
  const all = [...custom, ...(catalog?.items ?? POPULAR)];
  const shown = query.trim()
    ? searchEmoji(all, query, SEARCH_LIMIT)
    : category === 'Popular' ? POPULAR : all.filter((e) => e.category === category);
  const at = Math.min(active, Math.max(0, shown.length - 1));

  const done = () => {
    // Back to the button that opened the picker (it is in the row's hover bar, kept shown while focused).
    const back = opener?.current;
    close();
    back?.focus();
  };
  const pick = (e: EmojiItem) => {
    onPick(e);
    done();
  };
  const focusCell = (i: number) => {
    setActive(i);
    grid.current?.querySelectorAll<HTMLElement>('.emoji-choice')[i]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      done();
      return;
    }
    const inGrid = (e.target as HTMLElement).classList.contains('emoji-choice');
    const inSearch = (e.target as HTMLElement).tagName === 'INPUT';
    if (inSearch && e.key === 'Enter' && shown[0]) {
      e.preventDefault();
      pick(shown[0]);
      return;
    }
    if (inSearch && e.key === 'ArrowDown' && shown.length) {
      e.preventDefault();
      focusCell(0);
      return;
    }
    if (!inGrid) return;
    const step: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLS, ArrowUp: -COLS, Home: -at, End: shown.length - 1 - at };
    const d = step[e.key];
    if (d === undefined) return;
    e.preventDefault();
    const next = at + d;
    if (next < 0 && e.key === 'ArrowUp') box.current?.querySelector<HTMLInputElement>('input')?.focus();
    else focusCell(Math.max(0, Math.min(shown.length - 1, next)));
  };

  return (
    <div class="emoji-picker" role="dialog" aria-label={label} ref={box} onKeyDown={onKey} onClick={(e) => e.stopPropagation()}>
      <input type="search" class="emoji-search" aria-label={t('Search emoji')} placeholder={t('Search emoji')} value={query}
        onInput={(e) => { setQuery(e.currentTarget.value); setActive(0); }} />
      {!query.trim() && (
        <div class="emoji-categories" role="group" aria-label={t('Categories')}>
          {categories.map((c) => (
            <button key={c} type="button" aria-pressed={c === category} class={c === category ? 'on' : ''} onClick={() => { setCategory(c); setActive(0); }}>{t(c)}</button>
          ))}
        </div>
      )}
      <div class="emoji-grid" ref={grid} role="group" aria-label={query.trim() ? t('Search results') : t(category)}>
        {shown.length === 0 && <p class="empty">{catalog || !query.trim() ? t('No emoji match.') : t('Loading…')}</p>}
        {shown.map((e, i) => (
          <button key={`${e.type}:${e.code}:${e.name}`} type="button" class="emoji-choice" title={`:${e.name}:`} aria-label={e.name}
            tabIndex={i === at ? 0 : -1} onClick={() => pick(e)} onFocus={() => setActive(i)}>
            {e.type === 'realm_emoji' ? <img class="emoji" src={e.url} alt="" /> : glyph(e.code)}
          </button>
        ))}
      </div>
    </div>
  );
}
