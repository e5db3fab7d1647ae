/**
 * Profile cards and one's own status: what opens them (the card itself is a chunk of its own,
 * components/UserCard.tsx) and the status emoji shown next to names in the feed and user list.
 */
import { useEffect, useState } from 'preact/hooks';
import { glyph } from './emoji';
import { store } from './store';

export const people = { card: null as number | null, opener: null as HTMLElement | null, status: false };

/** Opens the profile card of `userId`; the focus comes back to `opener` when it closes. */
export function openCard(userId: number, opener: HTMLElement | null): void {
  people.card = userId;
  people.opener = opener;
  store.changed();
}

export function closePeople(): void {
  const back = people.opener;
  people.card = null;
  people.status = false;
  people.opener = null;
  store.changed();
  // On a phone the top bar's "Set status" sits in the menu, closed by now: the menu's button then.
  (back && back.isConnected && back.offsetParent !== null ? back : document.querySelector<HTMLElement>('.panel-toggle.menu'))?.focus();
}

export function openStatus(opener: HTMLElement | null): void {
  people.card = null;
  people.status = true;
  people.opener = opener;
  store.changed();
}

type Status = { away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };

export function statusOf(userId: number): Status {
  const all = (store.state?.reg as { user_status?: Record<string, Status> } | undefined)?.user_status;
  return all?.[String(userId)] ?? {};
}

const keyOf = (userId: number) => {
  const st = statusOf(userId);
  return `${st.emoji_name ?? ''}:${st.emoji_code ?? ''}:${st.status_text ?? ''}`;
};

/**
 * The status emoji of a person. It follows the store by itself (re-rendered only when this
 * person's status changed), as the feed's rows are memoised and do not re-render on events.
 */
export function StatusEmoji({ userId }: { userId: number }) {
  const [, setKey] = useState(() => keyOf(userId));
  useEffect(() => store.subscribe(() => setKey(keyOf(userId))), [userId]);
  const st = statusOf(userId);
  if (!st.emoji_name) return null;
  if (st.reaction_type === 'realm_emoji') {
    const e = store.state?.reg.realm_emoji?.[st.emoji_code ?? ''];
    if (e?.source_url) return <img class="status-emoji" src={e.source_url} alt={`:${st.emoji_name}:`} title={st.status_text} />;
  }
  return <span class="status-emoji" role="img" aria-label={st.emoji_name} title={st.status_text}>{glyph(st.emoji_code ?? '')}</span>;
}
