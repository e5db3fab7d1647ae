import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../hooks';
import { narrowToSearch, parseSearch } from '../narrow';
import { showNarrow } from '../view';
import { t } from '../i18n';

export const searchBox = { focus: null as null | (() => void) };

/** Zulip's search box: operators (stream:, topic:, sender:, is:, pm-with:) and free words. */
export function Search() {
  const store = useStore();
  const narrow = store.list.narrow;
  const [text, setText] = useState(narrowToSearch(narrow));
  const input = useRef<HTMLInputElement>(null);
  searchBox.focus = () => input.current?.focus();
  useEffect(() => setText(narrowToSearch(narrow)), [narrow]);
  return (
    <form role="search" class="search" onSubmit={(e) => { e.preventDefault(); input.current?.blur(); void showNarrow(parseSearch(text)); }}>
      <input ref={input} type="search" aria-label={t('Search')} placeholder={t('Search (stream:, topic:, sender:, is:starred…)')} value={text}
        onInput={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => { if (e.key === 'Escape') input.current?.blur(); }} />
    </form>
  );
}
