/** Zulip's core keyboard shortcuts (ignored while typing in a field, except Esc). */
import { closeCompose, compose, openCompose } from './components/Compose';
import { openView, special } from './special-view';
import { quoteAndReply } from './compose/quote';
import { toggleStar } from './components/MessageRow';
import { searchBox } from './components/Search';
import { pmPartners } from './narrow';
import { store } from './store';
import { openCard } from './people';
import { showNarrow } from './view';

export const ui = { help: false, settings: false, streams: false, invites: false, admin: false };

function reply(): void {
  const s = store.state!;
  const m = store.selected !== null ? store.messages.get(store.selected) : undefined;
  if (!m) return openCompose({});
  if (m.type === 'stream') {
    openCompose({ mode: 'stream', stream: s.streamsById.get(m.stream_id!)?.name ?? String(m.display_recipient), topic: m.subject });
  } else {
    const ids = pmPartners(m, s.me);
    openCompose({ mode: 'private', to: (ids.length ? ids : [s.me]).map((id) => s.usersById.get(id)?.email ?? '').join(', ') });
  }
}

function move(step: 1 | -1): void {
  const ids = store.list.ids;
  const i = store.selected === null ? -1 : ids.indexOf(store.selected);
  const next = ids[Math.max(0, Math.min(ids.length - 1, i < 0 ? (step > 0 ? 0 : ids.length - 1) : i + step))];
  if (next !== undefined) {
    store.selected = next;
    store.changed();
  }
}

/** The next topic with unread messages (Zulip's `n`), after the one in view. */
function nextUnreadTopic(): void {
  const s = store.state!;
  const streams = (s.reg.unread_msgs?.streams ?? []) as Array<{ stream_id: number; topic: string }>;
  const cur = store.list.narrow;
  const curStream = cur.find((t) => t.operator === 'stream')?.operand.toLowerCase();
  const curTopic = cur.find((t) => t.operator === 'topic')?.operand.toLowerCase();
  const muted = new Set(((s.reg.subscriptions ?? []) as Array<{ stream_id: number; is_muted?: boolean }>).filter((x) => x.is_muted).map((x) => x.stream_id));
  const next = streams.find((u) => !muted.has(u.stream_id) && !(s.streamsById.get(u.stream_id)?.name.toLowerCase() === curStream && u.topic.toLowerCase() === curTopic));
  if (!next) return;
  void showNarrow([{ operator: 'stream', operand: s.streamsById.get(next.stream_id)!.name }, { operator: 'topic', operand: next.topic }]);
}

export function installShortcuts(): void {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !store.state) return;
    const target = e.target as HTMLElement;
    const typing = target.closest('input, textarea, select, [contenteditable="true"]') !== null;
    if (e.key === 'Escape') {
      if (ui.help || ui.settings || ui.streams || ui.invites || ui.admin) Object.assign(ui, { help: false, settings: false, streams: false, invites: false, admin: false });
      else if (typing) (target as HTMLElement).blur();
      else if (compose.open) void closeCompose();
      else if (store.list.narrow.length || special.view !== null) void showNarrow([]);
      store.changed();
      return;
    }
    if (typing) return;
    const actions: Record<string, () => void> = {
      c: () => {
        const n = store.list.narrow;
        openCompose({ mode: 'stream', stream: n.find((t) => t.operator === 'stream')?.operand ?? compose.draft.stream, topic: n.find((t) => t.operator === 'topic')?.operand ?? '' });
      },
      x: () => openCompose({ mode: 'private', to: store.list.narrow.find((t) => t.operator === 'pm-with')?.operand ?? '' }),
      r: reply,
      Enter: reply,
      n: nextUnreadTopic,
      j: () => move(1),
      k: () => move(-1),
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      '/': () => searchBox.focus?.(),
      '*': () => {
        const m = store.selected !== null ? store.messages.get(store.selected) : undefined;
        if (m) void toggleStar(m);
      },
      // Zulip's > (quote and reply) and i (the selected message's actions menu).
      '>': () => {
        const m = store.selected !== null ? store.messages.get(store.selected) : undefined;
        if (m) void quoteAndReply(m);
      },
      // Zulip's u: the selected message's sender's profile card.
      u: () => {
        const m = store.selected !== null ? store.messages.get(store.selected) : undefined;
        if (m) openCard(m.sender_id, document.querySelector<HTMLElement>(`.message[data-id="${m.id}"]`));
      },
      // Zulip's t (Recent conversations), d (Drafts) and Shift+I (Inbox).
      t: () => openView('recent'),
      d: () => openView('drafts'),
      I: () => openView('inbox'),
      i: () => document.querySelector<HTMLButtonElement>(`.message[data-id="${store.selected}"] .menu-button`)?.click(),
      '?': () => {
        ui.help = !ui.help;
        store.changed();
      },
    };
    const f = actions[e.key];
    if (f && !(e.key === 'Enter' && target.closest('button, a'))) {
      e.preventDefault();
      f();
    }
  });
}
