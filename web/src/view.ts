/** The message view: which narrow is shown, fetching it (first unread first) and more either way. */
import { get } from './api';
import type { Narrow } from './narrow';
import { hashToNarrow, matches, narrowToHash, sameNarrow } from './narrow';
import { onReconnect } from './live';
import { MessageList, store } from './store';
import type { Message } from './types';
import { openView, special, viewOfHash } from './special-view';

const PAGE = 100;

async function fetchMessages(narrow: Narrow, anchor: number | string, before: number, after: number) {
  return get<{ messages: Message[]; found_oldest: boolean; found_newest: boolean; found_anchor: boolean; anchor: number }>('/messages', {
    anchor: String(anchor),
    num_before: before,
    num_after: after,
    narrow: narrow.map((t) => (t.negated ? { operator: t.operator, operand: t.operand, negated: true } : { operator: t.operator, operand: t.operand })),
    apply_markdown: true,
    client_gravatar: false,
  });
}

/** Shows a narrow, opening at its first unread message (or the newest when all are read). */
export async function showNarrow(narrow: Narrow, opts: { pushHash?: boolean } = {}): Promise<void> {
  special.view = null;
  const list = new MessageList(narrow);
  store.list = list;
  store.changed();
  if (opts.pushHash !== false && store.state) {
    const hash = narrowToHash(narrow, store.state);
    if (location.hash !== hash) history.pushState(null, '', hash);
  }
  await load(list);
}

async function load(list: MessageList): Promise<void> {
  list.loadingOlder = list.loadingNewer = true;
  try {
    const r = await fetchMessages(list.narrow, 'first_unread', 50, 50);
    if (store.list !== list) return;
    // Messages whose events came while the fetch was under way may be newer than its answer:
    // a view that reached the newest end takes them in too.
    const newestFetched = r.messages.at(-1)?.id ?? -1;
    store.addMessages(r.messages);
    list.insertAll(r.messages.map((m) => m.id));
    list.foundOldest = r.found_oldest;
    list.foundNewest = r.found_newest;
    if (r.found_newest && store.state) {
      for (const m of store.messages.values()) if (m.id > newestFetched && matches(list.narrow, m, store.state) === true) list.insert(m.id);
    }
    list.anchor = r.messages.some((m) => m.id === r.anchor) ? r.anchor : (r.messages.at(-1)?.id ?? null);
    list.error = null;
  } catch (e) {
    list.error = (e as Error).message;
  } finally {
    list.loadingOlder = list.loadingNewer = false;
    store.changed();
  }
}

/** A view whose fetch failed (the server was away) is fetched again once the queue answers. */
onReconnect(() => {
  if (store.list.error !== null) refetch();
});

/** After a re-register the queue missed events: fetch the view again, keeping what is shown. */
export function refetch(): void {
  const old = store.list;
  const list = new MessageList(old.narrow);
  store.list = list;
  void load(list);
}

export async function loadOlder(): Promise<void> {
  const list = store.list;
  if (list.foundOldest || list.loadingOlder || list.ids.length === 0) return;
  list.loadingOlder = true;
  store.changed();
  try {
    const r = await fetchMessages(list.narrow, list.ids[0]!, PAGE, 0);
    store.addMessages(r.messages);
    list.insertAll(r.messages.map((m) => m.id));
    list.foundOldest = r.found_oldest;
  } finally {
    list.loadingOlder = false;
    store.changed();
  }
}

export async function loadNewer(): Promise<void> {
  const list = store.list;
  if (list.foundNewest || list.loadingNewer || list.ids.length === 0) return;
  list.loadingNewer = true;
  store.changed();
  try {
    const r = await fetchMessages(list.narrow, list.ids.at(-1)!, 0, PAGE);
    store.addMessages(r.messages);
    list.insertAll(r.messages.map((m) => m.id));
    list.foundNewest = r.found_newest;
  } finally {
    list.loadingNewer = false;
    store.changed();
  }
}

/** The narrow in the address bar (back/forward and pasted links). */
export function narrowFromLocation(): Narrow {
  return (store.state && hashToNarrow(location.hash, store.state)) ?? [];
}

export function followHash(): void {
  const view = viewOfHash(location.hash);
  if (view) return openView(view, { pushHash: false });
  const n = narrowFromLocation();
  if (special.view !== null || !sameNarrow(n, store.list.narrow) || store.list.ids.length === 0) void showNarrow(n, { pushHash: false });
}
