/**
 * Zulip's stream settings overlay: on the left the streams ("Subscribed" / "All streams", a
 * filter, each with its privacy, description, subscriber count and a Subscribe/Unsubscribe
 * button), on the right the one opened (General, Personal, Subscribers) or the form that
 * creates one. On a phone the right side takes the whole screen, with a way back. Loaded on
 * demand (its own chunk); every change goes through the API under /json, and what changed
 * comes back by the stream and subscription events the store applies.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, del, get, post } from '../../api';
import { useStore } from '../../hooks';
import { onEvents } from '../../live';
import { store } from '../../store';
import { t, tn } from '../../i18n';
import type { State, Stream } from '../../types';
import { CreateStream } from './CreateStream';
import { mayAdminister, mayCreate, privacyIcon, privacyName } from './policy';
import { StreamDetail } from './StreamDetail';
import { tabKeys } from './tabs';
import './streams.css';

type Right = { kind: 'none' } | { kind: 'create' } | { kind: 'stream'; id: number };

/** The subscribers of each stream, fetched on demand; refreshed after the screens change them. */
export const members = {
  byId: new Map<number, number[]>(),
  listeners: new Set<() => void>(),
  async load(id: number): Promise<number[]> {
    const r = await get<{ subscribers: number[] }>(`/streams/${id}/members`);
    this.byId.set(id, r.subscribers);
    for (const f of this.listeners) f();
    return r.subscribers;
  },
};

const notifyMembers = () => { for (const f of members.listeners) f(); };

/** Others joining and leaving (peer_add/peer_remove), the viewer's own subscriptions and archived streams keep the counts current. */
onEvents((events) => {
  let changed = false;
  for (const e of events as Array<{ type: string; op?: string; stream_ids?: number[]; user_ids?: number[]; subscriptions?: Array<{ stream_id: number }>; streams?: Array<{ stream_id: number }> }>) {
    if (e.type === 'subscription' && (e.op === 'peer_add' || e.op === 'peer_remove')) {
      for (const id of e.stream_ids ?? []) {
        const now = members.byId.get(id);
        if (!now) continue;
        const set = new Set(now);
        for (const u of e.user_ids ?? []) (e.op === 'peer_add' ? set.add(u) : set.delete(u));
        members.byId.set(id, [...set]);
        changed = true;
      }
    } else if (e.type === 'subscription' && (e.op === 'add' || e.op === 'remove')) {
      const me = store.state?.me;
      for (const x of e.subscriptions ?? []) {
        const now = members.byId.get(x.stream_id);
        if (!now || me === undefined) continue;
        members.byId.set(x.stream_id, e.op === 'add' ? [...new Set([...now, me])] : now.filter((u) => u !== me));
        changed = true;
      }
    } else if (e.type === 'stream' && e.op === 'delete') {
      for (const x of e.streams ?? []) changed = members.byId.delete(x.stream_id) || changed;
    }
  }
  if (changed) notifyMembers();
});

export function useMembers(): void {
  const [, set] = useState(0);
  useEffect(() => {
    const f = () => set((n) => n + 1);
    members.listeners.add(f);
    return () => { members.listeners.delete(f); };
  }, []);
}

export const isSubscribed = (s: State, id: number) => (s.reg.subscriptions ?? []).some((x) => x.stream_id === id);

export const errorText = (e: unknown) => (e instanceof ApiError ? e.message : t('Could not reach the server.'));

export default function StreamSettings({ close }: { close: () => void }) {
  const store = useStore();
  const s = store.state!;
  useMembers();
  const [tab, setTab] = useState<'subscribed' | 'all'>('subscribed');
  const [filter, setFilter] = useState('');
  const [right, setRight] = useState<Right>({ kind: 'none' });
  const [note, setNote] = useState<string | null>(null);
  const filterBox = useRef<HTMLInputElement>(null);

  useEffect(() => {
    filterBox.current?.focus();
    // The counts: one call for the subscribed streams, then the others a few at a time.
    let live = true;
    void (async () => {
      try {
        const r = await get<{ subscriptions: Array<{ stream_id: number; subscribers?: number[] }> }>('/users/me/subscriptions', { include_subscribers: true });
        for (const x of r.subscriptions) if (x.subscribers) members.byId.set(x.stream_id, x.subscribers);
        for (const f of members.listeners) f();
      } catch { /* counts stay unknown */ }
      const rest = [...store.state!.streamsById.keys()].filter((id) => !members.byId.has(id));
      const next = async (): Promise<void> => {
        const id = rest.shift();
        if (id === undefined || !live) return;
        await members.load(id).catch(() => {});
        return next();
      };
      await Promise.all([next(), next(), next()]);
    })();
    return () => {
      live = false;
      document.querySelector<HTMLElement>('[aria-label="Browse or create streams"]')?.focus();
    };
  }, []);

  const subscribedIds = new Set((s.reg.subscriptions ?? []).map((x) => x.stream_id));
  const q = filter.trim().toLowerCase();
  const list = [...s.streamsById.values()]
    .filter((st) => (tab === 'all' || subscribedIds.has(st.stream_id)) && !(st as { is_archived?: boolean }).is_archived)
    .filter((st) => !q || st.name.toLowerCase().includes(q) || st.description.toLowerCase().includes(q))
    .sort((a, b) => a.name.localeCompare(b.name));
  const canCreate = (['public', 'private-shared', 'private-protected', 'web-public'] as const).some((k) => mayCreate(s, k));
  const open = right.kind === 'stream' ? s.streamsById.get(right.id) : undefined;
  const showRight = right.kind === 'create' || open !== undefined;
  const back = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // On a phone one side shows at a time: the focus goes along (to "Back to streams", then back to the row).
  const go = (r: Right) => {
    const wasRight = showRight;
    if (r.kind !== 'none' && !wasRight) opener.current = document.activeElement as HTMLElement | null;
    setRight(r);
  };
  useEffect(() => {
    if (showRight && back.current && back.current.offsetParent !== null) back.current.focus();
    else if (!showRight) {
      const a = document.activeElement as HTMLElement | null;
      if (a && a !== document.body && a.offsetParent !== null) return;
      (opener.current?.isConnected && opener.current.offsetParent !== null ? opener.current : filterBox.current)?.focus();
    }
  }, [showRight]);

  const [leaving, setLeaving] = useState<number | null>(null);
  const toggleSub = async (st: Stream, confirmed = false) => {
    setNote(null);
    // Leaving a private stream: Zulip asks first, as one cannot come back by oneself.
    if (subscribedIds.has(st.stream_id) && st.invite_only && !confirmed && !mayAdminister(s, st)) return setLeaving(st.stream_id);
    setLeaving(null);
    try {
      if (subscribedIds.has(st.stream_id)) await del('/users/me/subscriptions', { subscriptions: [st.name] });
      else await post('/users/me/subscriptions', { subscriptions: [{ name: st.name }] });
      await members.load(st.stream_id).catch(() => {});
    } catch (e) {
      setNote(errorText(e));
    }
  };

  const tabs = [['subscribed', t('Subscribed')], ['all', t('All streams')]] as const;
  return (
    <div class="modal streams-modal" role="dialog" aria-modal="true" aria-labelledby="streams-title">
      <div class={`modal-box streams-box ${showRight ? 'detail-open' : ''}`}>
        <header class="streams-head">
          <h2 id="streams-title">{t('Streams')}</h2>
          <button class="streams-close" onClick={close} aria-label={t('Close')}>×</button>
        </header>
        <div class="streams-body">
          <section class="streams-left" aria-label={t('Streams')}>
            <div class="streams-tabs" role="tablist" aria-label={t('Streams')}>
              {tabs.map(([k, label]) => (
                <button key={k} role="tab" aria-selected={tab === k} aria-controls="streams-list" id={`streams-tab-${k}`}
                  tabIndex={tab === k ? 0 : -1} onClick={() => setTab(k)} data-tab={k}
                  onKeyDown={tabKeys(['subscribed', 'all'] as const, tab, setTab)}>{label}</button>
              ))}
            </div>
            <div class="streams-tools">
              <input ref={filterBox} type="search" value={filter} placeholder={t('Filter streams')} aria-label={t('Filter streams')}
                onInput={(e) => setFilter(e.currentTarget.value)} />
              {canCreate && <button class="streams-create" onClick={() => go({ kind: 'create' })}>{t('Create stream')}</button>}
            </div>
            {note && <p class="streams-note error" role="alert">{note}</p>}
            <div class="streams-list" id="streams-list" role="tabpanel" aria-labelledby={`streams-tab-${tab}`}>
            <ul>
              {list.map((st) => {
                const n = members.byId.get(st.stream_id)?.length;
                const sub = subscribedIds.has(st.stream_id);
                return (
                  <li key={st.stream_id} class={right.kind === 'stream' && right.id === st.stream_id ? 'active' : ''}>
                    <button class="streams-row" onClick={() => go({ kind: 'stream', id: st.stream_id })} aria-label={t('{name}: settings', { name: st.name })}>
                      <span class="streams-name"><span aria-label={privacyName(st)} role="img" title={privacyName(st)}>{privacyIcon(st)}</span> {st.name}</span>
                      <span class="streams-desc">{st.description}</span>
                      {n !== undefined && <span class="streams-count">{tn('{n} subscriber', '{n} subscribers', n)}</span>}
                    </button>
                    {(sub || !st.invite_only || mayAdminister(s, st)) && <button class="streams-sub" onClick={() => void toggleSub(st)} aria-label={sub ? t('Unsubscribe from {name}', { name: st.name }) : t('Subscribe to {name}', { name: st.name })}>
                      {sub ? t('Unsubscribe') : t('Subscribe')}
                    </button>}
                    {leaving === st.stream_id && (
                      <div class="streams-confirm" role="group" aria-label={t('Unsubscribe from {name}?', { name: st.name })}>
                        <p>{t('Once you leave this stream, you will not be able to rejoin.')}</p>
                        <div class="row">
                          <button class="danger" onClick={() => void toggleSub(st, true)}>{t('Confirm')}</button>
                          <button onClick={() => setLeaving(null)}>{t('Cancel')}</button>
                        </div>
                      </div>
                    )}
                  </li>
                );
              })}
              {list.length === 0 && <li class="streams-empty">{tab === 'subscribed' && !q ? t('You are not subscribed to any streams.') : t('No streams match.')}</li>}
            </ul>
            </div>
          </section>
          <section class="streams-right" aria-label={open ? t('Settings of {name}', { name: open.name }) : right.kind === 'create' ? t('Create stream') : t('Stream settings')}>
            {showRight && <button class="streams-back" ref={back} onClick={() => go({ kind: 'none' })}>{t('Back to streams')}</button>}
            {right.kind === 'create'
              ? <CreateStream onCreated={(id) => setRight({ kind: 'stream', id })} onCancel={() => setRight({ kind: 'none' })} />
              : open
                ? <StreamDetail key={open.stream_id} stream={open} admin={mayAdminister(s, open)} onArchived={() => setRight({ kind: 'none' })} />
                : <p class="streams-placeholder">{t('Select a stream to see its settings.')}</p>}
          </section>
        </div>
      </div>
    </div>
  );
}

/** The people one may pick: active humans, by name, matching a query on name or email. */
export function usePeople(s: State, query: string, exclude: ReadonlySet<number>) {
  const all = useMemo(() => (s.reg.realm_users ?? []).filter((u) => !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name)), [s.reg.realm_users]);
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return all.filter((u) => !exclude.has(u.user_id) && (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q))).slice(0, 8);
}
