import { lazy, memo, Suspense } from 'preact/compat';
import { useRef, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { glyph } from '../emoji';
import { withFocusableCode, withLinkTargets } from '../content';
import { EmojiPicker } from './EmojiPicker';
import type { Message, Reaction } from '../types';
import { store } from '../store';
import { discard } from '../outbox';
import { Avatar } from './Avatar';
import { dateFormat, t } from '../i18n';
import { openCard, StatusEmoji } from '../people';

/** The actions menu is a chunk of its own, loaded when first opened. */
const MessageActions = lazy(() => import('./MessageActions'));

/** The server renders unicode emoji as `<span class="emoji emoji-1f44b" ...>:wave:</span>`; show the glyph. */
const EMOJI_SPAN = /(<span[^>]*class="emoji emoji-([0-9a-f]+(?:-[0-9a-f]+)*)"[^>]*>):[^<:]+:<\/span>/g;
const withGlyphs = (html: string) => (html.includes('class="emoji emoji-') ? html.replace(EMOJI_SPAN, (all: string, open: string, code: string) => (/[<>&"'\x00-\x7f]/.test(glyph(code)) ? all : `${open}${glyph(code)}</span>`)) : html);

// One formatter for every row: toLocaleTimeString builds a new one per call, and that was
// the largest share of mounting a row (the render window mounts 30 per scroll step).
const TIME: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const time = (ts: number) => dateFormat(TIME).format(ts * 1000);

/** Reactions grouped by emoji, as the API lists one entry per person. */
function groupReactions(reactions: Reaction[]) {
  const out = new Map<string, { r: Reaction; users: number[] }>();
  for (const r of reactions) {
    const k = `${r.reaction_type}:${r.emoji_code}`;
    const g = out.get(k) ?? { r, users: [] };
    g.users.push(r.user_id);
    out.set(k, g);
  }
  return [...out.values()];
}

function EmojiGlyph({ r }: { r: Pick<Reaction, 'reaction_type' | 'emoji_code' | 'emoji_name'> }) {
  if (r.reaction_type === 'realm_emoji') {
    const e = store.state?.reg.realm_emoji?.[r.emoji_code];
    if (e?.source_url) return <img class="emoji" src={e.source_url} alt={`:${r.emoji_name}:`} />;
  }
  return <span class="emoji" role="img" aria-label={r.emoji_name}>{glyph(r.emoji_code)}</span>;
}

export const toggleReaction = (m: Message, emoji_name: string, emoji_code: string, reaction_type = 'unicode_emoji') => {
  const mine = m.reactions.some((r) => r.user_id === store.state!.me && r.emoji_code === emoji_code && r.reaction_type === reaction_type);
  const params = { emoji_name, emoji_code, reaction_type };
  return (mine ? del(`/messages/${m.id}/reactions`, params) : post(`/messages/${m.id}/reactions`, params)).catch((e) => alertError(e));
};

export const toggleStar = (m: Message) =>
  post('/messages/flags', { messages: [m.id], op: m.flags.includes('starred') ? 'remove' : 'add', flag: 'starred' }).catch((e) => alertError(e));

function alertError(e: unknown) {
  store.flash = (e as Error).message;
  store.changed();
}

/**
 * Edits a message in place: its content (one's own), its topic, and its stream (Zulip's
 * PATCH /messages/{id} with stream_id), moving this message, it and later ones, or the whole
 * topic. The API takes no content change together with a stream change, so the text is
 * locked while another stream is chosen; another person's message can only be moved.
 */
function Editor({ m, done }: { m: Message; done: () => void }) {
  const mine = m.sender_id === store.state!.me;
  const [text, setText] = useState<string | null>(mine ? null : '');
  const [topic, setTopic] = useState(m.subject);
  const [streamId, setStreamId] = useState(m.stream_id ?? 0);
  const [propagate, setPropagate] = useState('change_one');
  // The raw markdown comes from GET /messages/{id} (the feed holds rendered HTML).
  const [raw, setRaw] = useState<string | null>(null);
  if (mine && text === null && raw === null) {
    get<{ raw_content?: string }>(`/messages/${m.id}`).then((r) => { setRaw(r.raw_content ?? ''); setText(r.raw_content ?? ''); }, () => { setRaw(''); setText(''); });
  }
  const moving = m.type === 'stream' && streamId !== m.stream_id;
  const save = async (e: Event) => {
    e.preventDefault();
    const params: Record<string, unknown> = {};
    if (mine && !moving && text !== null && text !== raw) params.content = text;
    if (m.type === 'stream' && topic !== m.subject) params.topic = topic;
    if (moving) params.stream_id = streamId;
    if (params.topic !== undefined || moving) params.propagate_mode = propagate;
    if (Object.keys(params).length === 0) return done();
    try {
      await patch(`/messages/${m.id}`, params);
      done();
    } catch (err) {
      alertError(err);
    }
  };
  const streams = (store.state!.reg.subscriptions ?? []) as Array<{ stream_id: number; name: string }>;
  const current = store.state!.streamsById.get(m.stream_id ?? -1);
  const choices = current && !streams.some((x) => x.stream_id === current.stream_id) ? [current, ...streams] : streams;
  return (
    <form class="editor" onSubmit={save}>
      {m.type === 'stream' && (
        <div class="editor-topic">
          <select aria-label={t('Stream')} value={String(streamId)} onChange={(e) => setStreamId(Number(e.currentTarget.value))}>
            {choices.map((x) => <option key={x.stream_id} value={String(x.stream_id)}>#{x.name}</option>)}
          </select>
          <input aria-label={t('Topic')} value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
          {/* Moving a topic: this message, it and later ones, or the whole topic (Zulip's propagate_mode). */}
          <select aria-label={t('Move which messages')} value={propagate} onChange={(e) => setPropagate(e.currentTarget.value)}>
            <option value="change_one">{t('This message')}</option>
            <option value="change_later">{t('This and later messages')}</option>
            <option value="change_all">{t('The whole topic')}</option>
          </select>
        </div>
      )}
      {mine && (
        <textarea aria-label={t('Message')} value={text ?? ''} disabled={text === null || moving} title={moving ? t('A message moved to another stream keeps its text') : undefined}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) void save(e); if (e.key === 'Escape') done(); }} />
      )}
      <button type="submit">{mine ? t('Save') : t('Move')}</button>
      <button type="button" onClick={done}>{t('Cancel')}</button>
    </form>
  );
}

type RowProps = { m: Message; selected: boolean; showSender: boolean; editing: boolean };

/** One message; memoised so a live message re-renders only its own row. */
export const MessageRow = memo(function MessageRow({ m, selected, showSender, editing }: RowProps) {
  const [picking, setPicking] = useState(false);
  const reactButton = useRef<HTMLButtonElement>(null);
  const [confirming, setConfirming] = useState(false);
  const [menu, setMenu] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const me = store.state!.me;
  const mine = m.sender_id === me;
  const starred = m.flags.includes('starred');
  const setEditing = (on: boolean) => {
    store.editing = on ? m.id : null;
    store.changed();
  };
  return (
    <div
      class={`message ${picking || menu ? 'picking' : ''} ${selected ? 'selected' : ''} ${m.local_id ? 'echo' : ''} ${m.flags.includes('read') ? '' : 'unread'} ${m.flags.includes('mentioned') ? 'mentioned' : ''}`}
      data-id={m.id}
      onClick={() => { if (m.id > 0 && store.selected !== m.id) { store.selected = m.id; store.changed(); } }}
    >
      {showSender && (
        <div class="sender-line">
          <button class="sender-card" aria-haspopup="dialog" onClick={(e) => openCard(m.sender_id, e.currentTarget)}>
            <Avatar url={m.avatar_url ?? store.state!.usersById.get(m.sender_id)?.avatar_url} name={m.sender_full_name} userId={m.sender_id} size="large" />
            <strong class="sender">{m.sender_full_name}</strong><StatusEmoji userId={m.sender_id} />
          </button>
          <time dateTime={new Date(m.timestamp * 1000).toISOString()}>{time(m.timestamp)}</time>
        </div>
      )}
      {editing ? <Editor m={m} done={() => setEditing(false)} /> : <div class="content" dangerouslySetInnerHTML={{ __html: withFocusableCode(withLinkTargets(withGlyphs(m.content))) }} />}
      {m.last_edit_timestamp !== undefined && !editing && <span class="edited">{t('(edited)')}</span>}
      {m.failed && m.local_id && <button class="link-button" onClick={() => discard(m.local_id!)}>{t('Dismiss')}</button>}
      {m.reactions.length > 0 && (
        <div class="reactions">
          {groupReactions(m.reactions).map(({ r, users }) => (
            <button key={r.emoji_code} class={`reaction ${users.includes(me) ? 'mine' : ''}`} aria-pressed={users.includes(me)} aria-label={`${r.emoji_name}: ${users.length}`}
              onClick={() => void toggleReaction(m, r.emoji_name, r.emoji_code, r.reaction_type)}>
              <EmojiGlyph r={r} /> {users.length}
            </button>
          ))}
        </div>
      )}
      {m.id > 0 && (
        <div class="actions">
          <button class={`star ${starred ? 'on' : ''}`} aria-pressed={starred} aria-label={starred ? t('Unstar') : t('Star')} onClick={() => void toggleStar(m)}>{starred ? '★' : '☆'}</button>
          <button ref={reactButton} aria-label={t('Add reaction')} aria-expanded={picking} onClick={() => setPicking(!picking)}>☺</button>
          {mine && <button aria-label={t('Edit')} onClick={() => setEditing(true)}>✎</button>}
          {!mine && m.type === 'stream' && <button aria-label={t('Move')} onClick={() => setEditing(true)}>⇄</button>}
          {mine && !confirming && <button aria-label={t('Delete')} onClick={() => setConfirming(true)}>🗑</button>}
          {mine && confirming && <button class="danger" onClick={() => del(`/messages/${m.id}`).catch(alertError)}>{t('Delete?')}</button>}
          <button ref={menuButton} class="menu-button" aria-label={t('Message actions')} aria-haspopup="menu" aria-expanded={menu} onClick={() => setMenu(!menu)}>⋮</button>
        </div>
      )}
      {menu && <Suspense fallback={null}><MessageActions m={m} opener={menuButton} close={() => setMenu(false)} /></Suspense>}
      {picking && <EmojiPicker label={t('Add a reaction')} opener={reactButton} close={() => setPicking(false)} onPick={(e) => void toggleReaction(m, e.name, e.code, e.type)} />}
    </div>
  );
});
