/**
 * The message feed. Only a window of the loaded messages is in the DOM (at most WINDOW rows
 * around what is on screen, as Zulip's render window does), so 10,000 loaded messages cost
 * no more to scroll than 150. The window slides as the person scrolls, more history is
 * fetched at either end, and the row at the top of the viewport keeps its place on screen
 * when rows are added or dropped above it.
 */
import { useEffect, useLayoutEffect, useReducer, useRef } from 'preact/hooks';
import { post } from '../api';
import { useStore } from '../hooks';
import type { Narrow } from '../narrow';
import { matches, narrowTitle, pmPartners } from '../narrow';
import type { Store } from '../store';
import { typingKey } from '../store';
import type { Message, State } from '../types';
import { loadNewer, loadOlder, showNarrow } from '../view';
import { MessageRow } from './MessageRow';
import { t, tn } from '../i18n';

// A step of a few rows per scroll event: mounting and laying out rows is most of a step's
// cost, and small steps keep every task short (browser-feed.test.ts: no long task while
// scrolling through 10,000 messages); the window still holds several screens.
export const WINDOW = 100;
const STEP = 10;
const EDGE_PX = 600;

/** The conversation a message belongs to: same key, same header. */
function conversationOf(m: Message, s: State): { key: string; label: string; narrow: Narrow } {
  if (m.type === 'stream') {
    const stream = (m.stream_id !== undefined && s.streamsById.get(m.stream_id)?.name) || (typeof m.display_recipient === 'string' ? m.display_recipient : '');
    return { key: `s:${m.stream_id}:${m.subject.toLowerCase()}`, label: `#${stream} > ${m.subject}`, narrow: [{ operator: 'stream', operand: stream }, { operator: 'topic', operand: m.subject }] };
  }
  const ids = pmPartners(m, s.me);
  const people = (ids.length ? ids : [s.me]).map((id) => s.usersById.get(id));
  const emails = people.map((u) => u?.email ?? '').join(',');
  return { key: `p:${ids.join(',')}`, label: t('You and {names}', { names: people.map((u) => u?.full_name ?? '?').join(', ') }), narrow: [{ operator: 'pm-with', operand: emails }] };
}

/** Marks messages read once they have been fully on screen, in batches. */
function useMarkRead(store: Store, scroller: { current: HTMLElement | null }) {
  const queue = useRef(new Set<number>());
  const timer = useRef<number>(0);
  const observer = useRef<IntersectionObserver | null>(null);
  useEffect(() => {
    const flush = () => {
      timer.current = 0;
      if (document.visibilityState !== 'visible' || store.noAutoRead === store.list) return queue.current.clear();
      const ids = [...queue.current].filter((id) => store.messages.get(id)?.flags.includes('read') === false);
      queue.current.clear();
      if (ids.length) post('/messages/flags', { messages: ids, op: 'add', flag: 'read' }).catch(() => {});
    };
    observer.current = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const root = e.rootBounds;
        // Seen: its bottom edge has been inside the viewport (a tall message counts once read through).
        if (e.isIntersecting && root && e.boundingClientRect.bottom <= root.bottom + 1) {
          queue.current.add(Number((e.target as HTMLElement).dataset.id));
          observer.current?.unobserve(e.target);
        }
      }
      if (queue.current.size && !timer.current) timer.current = window.setTimeout(flush, 250);
    }, { root: scroller.current, threshold: [0, 0.5, 1] });
    return () => observer.current?.disconnect();
  }, []);
  return observer;
}

export function Feed() {
  const store = useStore();
  const s = store.state!;
  const list = store.list;
  const scroller = useRef<HTMLDivElement>(null);
  // The window, by message id so that prepending history does not shift it.
  const win = useRef<{ list: typeof list | null; lo: number; hi: number; stick: boolean; scrolled: boolean; dir: 'up' | 'down'; atEnd: boolean; selected: number | null }>({ list: null, lo: 0, hi: 0, stick: false, scrolled: false, dir: 'down', atEnd: false, selected: null });
  const keep = useRef<{ id: number; top: number } | null>(null);
  const observer = useMarkRead(store, scroller);
  // Sliding the window is the feed's own business: it re-renders the feed alone, not the
  // whole app through the store (sidebars and all, on every step of a scroll).
  const [, slid] = useReducer((n: number) => n + 1, 0);

  const ids = list.ids;
  const w = win.current;
  if (w.list !== list || (w.hi === 0 && ids.length)) {
    const at = list.anchor === null ? ids.length - 1 : Math.max(0, ids.indexOf(list.anchor));
    const lo = Math.max(0, Math.min(at - 40, ids.length - WINDOW));
    Object.assign(w, { list, lo: ids[lo] ?? 0, hi: ids[Math.min(ids.length, lo + WINDOW) - 1] ?? 0, stick: false, scrolled: false });
  }
  // A window that reached the newest end last time takes live messages in (below the viewport
  // they disturb nothing); the view follows them only while the person is at the bottom.
  if (w.atEnd && list.foundNewest && ids.length) w.hi = ids[ids.length - 1]!;
  let lo = ids.findIndex((id) => id >= w.lo);
  if (lo < 0) lo = ids.length;
  let hi = ids.length;
  while (hi > lo && ids[hi - 1]! > w.hi) hi--;
  // Too wide (live messages, a page of history): drop rows on the side the person moves away from.
  if (hi - lo > WINDOW + STEP) {
    if (w.stick || w.dir === 'down') lo = hi - WINDOW;
    else hi = lo + WINDOW;
    w.lo = ids[lo] ?? 0;
    w.hi = ids[hi - 1] ?? 0;
  }
  // A selection moved by the keyboard (j/k) beyond the window brings the window along.
  const sel = store.selected === null ? -1 : ids.indexOf(store.selected);
  if (store.selected !== w.selected) {
    w.selected = store.selected;
    if (sel >= 0 && (sel < lo || sel >= hi)) {
      lo = Math.max(0, sel - WINDOW / 2);
      hi = Math.min(ids.length, lo + WINDOW);
      w.lo = ids[lo]!;
      w.hi = ids[hi - 1]!;
    }
  }
  const shown = ids.slice(lo, hi).map((id) => store.messages.get(id)).filter((m): m is Message => m !== undefined);
  const atNewest = hi === ids.length && list.foundNewest;
  w.atEnd = hi === ids.length;
  const echoes = atNewest ? store.outbox.filter((m) => matches(list.narrow, m, s) !== false) : [];
  const rows = [...shown, ...echoes];

  /** Remembers the first visible row, so the next layout can put it back where it was. */
  const remember = () => {
    const el = scroller.current;
    if (!el) return;
    for (const row of el.querySelectorAll<HTMLElement>('.message')) {
      if (row.offsetTop + row.offsetHeight > el.scrollTop) {
        keep.current = { id: Number(row.dataset.id), top: row.offsetTop - el.scrollTop };
        return;
      }
    }
  };

  const edges = useRef<() => void>(() => {});
  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight;
    w.stick = fromBottom < 40 && atNewest;
    if (el.scrollTop < EDGE_PX && (lo > 0 || (!list.foundOldest && !list.loadingOlder))) {
      w.dir = 'up';
      if (lo > 0) {
        remember();
        const nlo = Math.max(0, lo - STEP);
        w.lo = ids[nlo]!;
        if (hi - nlo > WINDOW) w.hi = ids[nlo + WINDOW - 1]!;
        slid(undefined);
      } else if (!list.foundOldest && !list.loadingOlder) {
        remember();
        const first = ids[0];
        void loadOlder().then(() => {
          // Reach a step into the history just fetched, keeping the row on screen where it is.
          remember();
          const at = store.list.ids.indexOf(first ?? 0);
          w.lo = store.list.ids[Math.max(0, at - STEP)] ?? 0;
          slid(undefined);
        });
      }
    } else if (fromBottom < EDGE_PX) {
      w.dir = 'down';
      if (hi < ids.length) {
        remember();
        const nhi = Math.min(ids.length, hi + STEP);
        w.hi = ids[nhi - 1]!;
        if (nhi - lo > WINDOW) w.lo = ids[nhi - WINDOW]!;
        slid(undefined);
      } else if (!list.foundNewest && !list.loadingNewer) {
        const last = ids[ids.length - 1];
        void loadNewer().then(() => {
          const at = store.list.ids.indexOf(last ?? 0);
          w.hi = store.list.ids[Math.min(store.list.ids.length - 1, at + STEP)] ?? Number.MAX_SAFE_INTEGER;
          slid(undefined);
        });
      }
    }
  };

  edges.current = onScroll;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (!w.scrolled && list.anchor !== null) {
      // Open at the first unread message (or the newest), near the top of the view.
      const row = el.querySelector<HTMLElement>(`.message[data-id="${list.anchor}"]`);
      if (row) {
        w.scrolled = true;
        el.scrollTop = Math.max(0, row.offsetTop - el.clientHeight / 3);
        if (store.selected === null || !ids.includes(store.selected)) store.selected = list.anchor;
        w.stick = el.scrollHeight - el.scrollTop - el.clientHeight < 40 && atNewest;
      }
    } else if (keep.current) {
      const row = el.querySelector<HTMLElement>(`.message[data-id="${keep.current.id}"]`);
      if (row) el.scrollTop = row.offsetTop - keep.current.top;
      keep.current = null;
    } else if (w.stick) {
      el.scrollTop = el.scrollHeight;
    }
    // At an edge with more to show, no scroll event may come (already at scrollTop 0): look again.
    if (w.scrolled && !list.loadingOlder && !list.loadingNewer && (el.scrollTop < EDGE_PX || el.scrollHeight - el.scrollTop - el.clientHeight < EDGE_PX)) {
      if (lo > 0 || !list.foundOldest || hi < ids.length || !list.foundNewest) setTimeout(() => edges.current(), 0);
    }
    // Nothing to scroll yet: the view follows whatever comes.
    if (el.scrollHeight <= el.clientHeight + 40 && atNewest) w.stick = true;
    for (const row of el.querySelectorAll<HTMLElement>('.message.unread')) observer.current?.observe(row);
  });

  useEffect(() => {
    if (store.selected === null) return;
    scroller.current?.querySelector(`.message[data-id="${store.selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [store.selected]);

  let prevKey = '';
  let prevSender = -1;
  const typingHere = typists(store, list.narrow);
  return (
    <section class="feed" aria-label={narrowTitle(list.narrow, s)}>
      <h1 class="view-title">{narrowTitle(list.narrow, s)}</h1>
      <div class="scroller" ref={scroller} onScroll={onScroll} tabIndex={-1}>
        {lo === 0 && list.foundOldest && <p class="edge">{ids.length ? t('The beginning of this view') : ''}</p>}
        {(list.loadingOlder || (lo === 0 && !list.foundOldest && ids.length > 0)) && <p class="edge">{t('Loading…')}</p>}
        {rows.length === 0 && !list.loadingOlder && <p class="empty">{list.error ?? t('No messages here yet.')}</p>}
        {rows.map((m) => {
          const conv = conversationOf(m, s);
          const header = conv.key !== prevKey;
          const showSender = header || prevSender !== m.sender_id;
          prevKey = conv.key;
          prevSender = m.sender_id;
          return (
            <div key={m.local_id ?? m.id} class="group">
              {header && (
                <a class="recipient-header" href="#" onClick={(e) => { e.preventDefault(); void showNarrow(conv.narrow); }}>{conv.label}</a>
              )}
              <MessageRow m={m} selected={store.selected === m.id} showSender={showSender} editing={store.editing === m.id} />
            </div>
          );
        })}
        {list.loadingNewer && <p class="edge">{t('Loading…')}</p>}
      </div>
      <p class="typing" aria-live="polite">{typingHere}</p>
    </section>
  );
}

/** "X is typing…" for the conversation in view. */
function typists(store: Store, narrow: Narrow): string {
  const s = store.state!;
  const stream = narrow.find((t) => t.operator === 'stream')?.operand;
  const topic = narrow.find((t) => t.operator === 'topic')?.operand;
  const pm = narrow.find((t) => t.operator === 'pm-with')?.operand;
  let key: string | undefined;
  if (stream && topic) {
    const st = [...s.streamsById.values()].find((x) => x.name.toLowerCase() === stream.toLowerCase());
    if (st) key = typingKey.stream(st.stream_id, topic);
  } else if (pm) {
    key = typingKey.pm(pm.split(',').map((e) => s.usersByEmail.get(e.toLowerCase())?.user_id ?? 0).filter((id) => id !== s.me));
  }
  const who = key ? store.typing.get(key) : undefined;
  if (!who?.length) return '';
  const names = who.map((w) => s.usersById.get(w.userId)?.full_name ?? t('Someone'));
  return tn('{names} is typing…', '{names} are typing…', names.length, { names: names.join(', ') });
}
