/**
 * A message's actions menu (Zulip's message actions popover), loaded on demand: quote and
 * reply, copy link, mark unread from here, star, follow / mute / resolve its topic, move,
 * edit history and read receipts. Each action is the API's own call; what the organization's
 * policies refuse, the API refuses, and its message is shown.
 *
 * Keyboard: the menu takes focus, ↑/↓ (and Home/End) move between items, Escape or Tab
 * closes it and gives focus back to the button that opened it.
 */
import { createPortal } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get, patch, post } from '../api';
import { withLinkTargets } from '../content';
import { dateFormat, t, tn } from '../i18n';
import { messageLink, quoteAndReply } from '../compose/quote';
import { store } from '../store';
import type { Message } from '../types';
import './message-actions.css';

/** Zulip's resolved-topic prefix (RESOLVED_TOPIC_PREFIX). */
export const RESOLVED = '✔ ';
const POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 };
const level = () => store.state!.reg.zulip_feature_level ?? 0;

function flash(text: string): void {
  store.flash = text;
  store.changed();
}
const failed = (e: unknown) => flash((e as Error).message);

/** The viewer's visibility policy for a topic: user_topics (level 134), or the older muted_topics. */
function topicPolicy(m: Message): number {
  const reg = store.state!.reg;
  const lower = m.subject.toLowerCase();
  if (reg.user_topics) return reg.user_topics.find((x) => x.stream_id === m.stream_id && x.topic_name.toLowerCase() === lower)?.visibility_policy ?? POLICY.INHERIT;
  const name = store.state!.streamsById.get(m.stream_id!)?.name;
  return (reg.muted_topics ?? []).some(([s, topic]) => s === name && topic.toLowerCase() === lower) ? POLICY.MUTED : POLICY.INHERIT;
}

const setPolicy = (m: Message, visibility_policy: number) =>
  post('/user_topics', { stream_id: m.stream_id, topic: m.subject, visibility_policy }).catch(failed);

/** Zulip's toggle_resolve_topic: the whole topic renamed, a notice in the new topic only. */
function toggleResolved(m: Message) {
  let topic = m.subject;
  if (topic.startsWith(RESOLVED)) {
    while (topic.startsWith(RESOLVED)) topic = topic.slice(RESOLVED.length);
  } else topic = RESOLVED + topic;
  return patch(`/messages/${m.id}`, { topic, propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: true }).catch(failed);
}

/**
 * Marks the message and every later one in the view unread (POST /messages/flags/narrow, in
 * ranges of 1,000), and stops the view from marking them read again until it is left, as Zulip does.
 */
async function markUnreadFromHere(m: Message) {
  const list = store.list;
  store.noAutoRead = list;
  const narrow = list.narrow.map((x) => (x.negated ? { operator: x.operator, operand: x.operand, negated: true } : { operator: x.operator, operand: x.operand }));
  let anchor = m.id;
  let include = true;
  try {
    for (;;) {
      const r = await post<{ found_newest: boolean; last_processed_id: number | null }>('/messages/flags/narrow',
        { anchor: String(anchor), include_anchor: include, num_before: 0, num_after: 1000, narrow, op: 'remove', flag: 'read' });
      if (r.found_newest || r.last_processed_id === null) break;
      anchor = r.last_processed_id;
      include = false;
    }
  } catch (e) {
    failed(e);
  }
}

async function copyLink(m: Message) {
  const link = messageLink(m);
  try {
    await navigator.clipboard.writeText(link);
  } catch {
    // No clipboard API (an insecure origin): the old way, through a selected field.
    const area = document.createElement('textarea');
    area.value = link;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  flash(t('Copied link to message'));
}

type Item = { label: string; run: () => unknown } | null;

export default function MessageActions({ m, opener, close }: { m: Message; opener: { current: HTMLButtonElement | null }; close: () => void }) {
  const [dialog, setDialog] = useState<null | 'history' | 'receipts'>(null);
  const menu = useRef<HTMLDivElement>(null);
  const s = store.state!;
  const reg = s.reg as typeof s.reg & Record<string, unknown>;
  const starred = m.flags.includes('starred');
  const isStream = m.type === 'stream';
  const policy = isStream ? topicPolicy(m) : POLICY.INHERIT;
  const streamMuted = isStream && (s.streamsById.get(m.stream_id!)?.is_muted ?? false);
  const historyShown = reg.realm_allow_edit_history !== false && reg.realm_message_edit_history_visibility_policy !== 'none';
  const edited = m.last_edit_timestamp !== undefined || (m as { last_moved_timestamp?: number }).last_moved_timestamp !== undefined;

  const done = (fn: () => unknown) => () => {
    close();
    opener.current?.focus();
    void fn();
  };
  const items: Item[] = [
    { label: t('Quote and reply'), run: done(() => quoteAndReply(m)) },
    { label: t('Copy link to message'), run: done(() => copyLink(m)) },
    { label: t('Mark as unread from here'), run: done(() => markUnreadFromHere(m)) },
    { label: starred ? t('Unstar message') : t('Star message'), run: done(() => post('/messages/flags', { messages: [m.id], op: starred ? 'remove' : 'add', flag: 'starred' }).catch(failed)) },
    isStream && level() >= 219 ? (policy === POLICY.FOLLOWED
      ? { label: t('Unfollow topic'), run: done(() => setPolicy(m, POLICY.INHERIT)) }
      : { label: t('Follow topic'), run: done(() => setPolicy(m, POLICY.FOLLOWED)) }) : null,
    isStream ? (policy === POLICY.MUTED || (streamMuted && policy !== POLICY.UNMUTED && policy !== POLICY.FOLLOWED)
      ? { label: t('Unmute topic'), run: done(() => setPolicy(m, streamMuted ? POLICY.UNMUTED : POLICY.INHERIT)) }
      : { label: t('Mute topic'), run: done(() => setPolicy(m, POLICY.MUTED)) }) : null,
    isStream ? { label: m.subject.startsWith(RESOLVED) ? t('Mark as unresolved') : t('Mark as resolved'), run: done(() => toggleResolved(m)) } : null,
    isStream ? { label: t('Move message'), run: done(() => { store.editing = m.id; store.changed(); }) } : null,
    edited && historyShown ? { label: t('View edit history'), run: () => setDialog('history') } : null,
    level() >= 137 && reg.realm_enable_read_receipts === true ? { label: t('View read receipts'), run: () => setDialog('receipts') } : null,
  ];
  const shown = items.filter((x): x is NonNullable<Item> => x !== null);

  // Placed by the button, on the screen (fixed, so that no scrolled pane clips it), below it or
  // above when there is no room, and kept there as the feed scrolls.
  useLayoutEffect(() => {
    if (dialog) return;
    const place = () => {
      const el = menu.current;
      const at = opener.current?.getBoundingClientRect();
      if (!el || !at) return;
      const { offsetWidth: w, offsetHeight: h } = el;
      const below = at.bottom + 4;
      const top = below + h <= window.innerHeight - 8 ? below : Math.max(8, at.top - h - 4);
      const left = Math.max(8, Math.min(at.right - w, window.innerWidth - w - 8));
      el.style.top = `${top}px`;
      el.style.left = `${left}px`;
    };
    const focusFirst = () => {
      if (!menu.current?.contains(document.activeElement)) menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus({ preventScroll: true });
    };
    place();
    focusFirst();
    // A lazily loaded menu may be laid out only once Suspense has put it in the page.
    const frame = requestAnimationFrame(() => {
      place();
      focusFirst();
    });
    window.addEventListener('resize', place);
    document.addEventListener('scroll', place, true);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('resize', place);
      document.removeEventListener('scroll', place, true);
    };
  }, [dialog]);
  // A click elsewhere closes the menu, and so does Escape wherever the focus is.
  useEffect(() => {
    if (dialog) return;
    const away = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !opener.current?.contains(e.target as Node)) close();
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      close();
      opener.current?.focus();
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', escape, true);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', escape, true);
    };
  }, [dialog]);

  const onKeyDown = (e: KeyboardEvent) => {
    const entries = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = entries.indexOf(document.activeElement as HTMLElement);
    const to = (n: number) => entries[(n + entries.length) % entries.length]?.focus();
    if (e.key === 'ArrowDown') to(i + 1);
    else if (e.key === 'ArrowUp') to(i - 1);
    else if (e.key === 'Home') to(0);
    else if (e.key === 'End') to(entries.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') {
      close();
      opener.current?.focus();
    } else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const closeDialog = () => {
    close();
    opener.current?.focus();
  };
  // In the page's body: the feed's pane contains its rows' layout and paint (contain: content),
  // which would clip a menu or a dialog drawn inside a row.
  if (dialog === 'history') return createPortal(<EditHistory m={m} close={closeDialog} />, document.body);
  if (dialog === 'receipts') return createPortal(<ReadReceipts m={m} close={closeDialog} />, document.body);
  return createPortal(
    <div class="message-menu" role="menu" aria-label={t('Message actions')} ref={menu} onKeyDown={onKeyDown}>
      {shown.map((it) => <button key={it.label} type="button" role="menuitem" tabIndex={-1} onClick={it.run}>{it.label}</button>)}
    </div>,
    document.body,
  );
}

/** A modal that takes focus, closes by Escape, and gives focus back (by its caller). */
function Modal({ title, close, children }: { title: string; close: () => void; children: preact.ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.querySelector<HTMLElement>('button')?.focus();
  }, []);
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="message-dialog-title"
      onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); e.preventDefault(); close(); } }}
      onClick={(e) => { if (e.target === e.currentTarget) close(); }}>
      <div class="modal-box" ref={box}>
        <div class="message-dialog-head">
          <h2 id="message-dialog-title">{title}</h2>
          <button type="button" onClick={close}>{t('Close')}</button>
        </div>
        {children}
      </div>
    </div>
  );
}

type Version = {
  timestamp: number; user_id: number | null; topic?: string; prev_topic?: string; stream?: number; prev_stream?: number;
  rendered_content?: string; prev_rendered_content?: string; content_html_diff?: string;
};

const WHEN: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/** Zulip's edit history: each version, oldest first, with who did what and when. */
function EditHistory({ m, close }: { m: Message; close: () => void }) {
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<{ message_history: Version[] }>(`/messages/${m.id}/history`).then((r) => setVersions(r.message_history), (e: Error) => setError(e.message));
  }, [m.id]);
  const s = store.state!;
  const name = (id: number | null) => (id === null ? t('Someone') : s.usersById.get(id)?.full_name ?? t('Unknown user'));
  const streamName = (id: number | undefined) => `#${s.streamsById.get(id ?? -1)?.name ?? t('Unknown stream')}`;
  return (
    <Modal title={t('Message edit history')} close={close}>
      {error && <p class="error" role="alert">{error}</p>}
      {!versions && !error && <p>{t('Loading…')}</p>}
      {versions && (
        <ol class="edit-history">
          {versions.map((v, i) => {
            const moved = v.prev_topic !== undefined || v.prev_stream !== undefined;
            const editedContent = v.prev_rendered_content !== undefined;
            const what = i === 0 ? t('Posted by {name}', { name: name(v.user_id) })
              : editedContent ? t('Edited by {name}', { name: name(v.user_id) }) : t('Moved by {name}', { name: name(v.user_id) });
            return (
              <li key={i}>
                <p class="edit-head"><strong>{what}</strong> <time dateTime={new Date(v.timestamp * 1000).toISOString()}>{dateFormat(WHEN).format(v.timestamp * 1000)}</time></p>
                {moved && v.prev_stream !== undefined && <p class="edit-move">{t('Stream')}: <del>{streamName(v.prev_stream)}</del> → <ins>{streamName(v.stream)}</ins></p>}
                {moved && v.prev_topic !== undefined && <p class="edit-move">{t('Topic')}: <del>{v.prev_topic}</del> → <ins>{v.topic}</ins></p>}
                {(i === 0 || editedContent) && (
                  <div class="content" dangerouslySetInnerHTML={{ __html: withLinkTargets(v.content_html_diff ?? v.rendered_content ?? '') }} />
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Modal>
  );
}

/** Who has read the message (GET /messages/{id}/read_receipts, feature level 137). */
function ReadReceipts({ m, close }: { m: Message; close: () => void }) {
  const [ids, setIds] = useState<number[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<{ user_ids: number[] }>(`/messages/${m.id}/read_receipts`).then((r) => setIds(r.user_ids), (e: Error) => setError(e.message));
  }, [m.id]);
  const s = store.state!;
  const people = (ids ?? []).map((id) => s.usersById.get(id)).filter((u) => u !== undefined).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <Modal title={t('Read receipts')} close={close}>
      {error && <p class="error" role="alert">{error}</p>}
      {!ids && !error && <p>{t('Loading…')}</p>}
      {ids && (ids.length === 0 ? <p>{t('No one has read this message yet.')}</p> : (
        <>
          <p>{tn('This message has been read by {n} person:', 'This message has been read by {n} people:', ids.length)}</p>
          <ul class="read-receipts">{people.map((u) => <li key={u.user_id}>{u.full_name}</li>)}</ul>
        </>
      ))}
    </Modal>
  );
}
