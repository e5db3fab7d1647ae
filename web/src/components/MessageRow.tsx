import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { COMMON_EMOJI, glyph } from '../emoji';
import type { Message, Reaction } from '../types';
import { store } from '../store';
import { discard } from '../outbox';

/** The server renders unicode emoji as `<span class="emoji emoji-1f44b" ...>:wave:</span>`; show the glyph. */
const EMOJI_SPAN = /(<span[^>]*class="emoji emoji-([0-9a-f]+(?:-[0-9a-f]+)*)"[^>]*>):[^<:]+:<\/span>/g;
const withGlyphs = (html: string) => (html.includes('class="emoji emoji-') ? html.replace(EMOJI_SPAN, (all: string, open: string, code: string) => (/[<>&"'\x00-\x7f]/.test(glyph(code)) ? all : `${open}${glyph(code)}</span>`)) : html);

const time = (ts: number) => new Date(ts * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

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

function Picker({ m, close }: { m: Message; close: () => void }) {
  return (
    <div class="emoji-picker" role="dialog" aria-label="Add a reaction">
      {COMMON_EMOJI.map(([name, code]) => (
        <button key={name} class="emoji-choice" title={`:${name}:`} aria-label={name} onClick={() => { void toggleReaction(m, name, code); close(); }}>
          {glyph(code)}
        </button>
      ))}
    </div>
  );
}

function Editor({ m, done }: { m: Message; done: () => void }) {
  const [text, setText] = useState<string | null>(null);
  const [topic, setTopic] = useState(m.subject);
  const [propagate, setPropagate] = useState('change_one');
  // The raw markdown comes from GET /messages/{id} (the feed holds rendered HTML).
  if (text === null) {
    get(`/messages/${m.id}`).then((r) => setText(r.raw_content ?? ''), () => setText(''));
  }
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await patch(`/messages/${m.id}`, { content: text ?? undefined, ...(m.type === 'stream' && topic !== m.subject ? { topic, propagate_mode: propagate } : {}) });
      done();
    } catch (err) {
      alertError(err);
    }
  };
  return (
    <form class="editor" onSubmit={save}>
      {m.type === 'stream' && (
        <div class="editor-topic">
          <input aria-label="Topic" value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
          {/* Moving a topic: this message, it and later ones, or the whole topic (Zulip's propagate_mode). */}
          <select aria-label="Move which messages" value={propagate} onChange={(e) => setPropagate(e.currentTarget.value)}>
            <option value="change_one">This message</option>
            <option value="change_later">This and later messages</option>
            <option value="change_all">The whole topic</option>
          </select>
        </div>
      )}
      <textarea aria-label="Message" value={text ?? ''} disabled={text === null} onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) void save(e); if (e.key === 'Escape') done(); }} />
      <button type="submit">Save</button>
      <button type="button" onClick={done}>Cancel</button>
    </form>
  );
}

type RowProps = { m: Message; selected: boolean; showSender: boolean; editing: boolean };

/** One message; memoised so a live message re-renders only its own row. */
export const MessageRow = memo(function MessageRow({ m, selected, showSender, editing }: RowProps) {
  const [picking, setPicking] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const me = store.state!.me;
  const mine = m.sender_id === me;
  const starred = m.flags.includes('starred');
  const setEditing = (on: boolean) => {
    store.editing = on ? m.id : null;
    store.changed();
  };
  return (
    <div
      class={`message ${selected ? 'selected' : ''} ${m.local_id ? 'echo' : ''} ${m.flags.includes('read') ? '' : 'unread'} ${m.flags.includes('mentioned') ? 'mentioned' : ''}`}
      data-id={m.id}
      onClick={() => { if (m.id > 0 && store.selected !== m.id) { store.selected = m.id; store.changed(); } }}
    >
      {showSender && (
        <div class="sender-line">
          <strong class="sender">{m.sender_full_name}</strong>
          <time dateTime={new Date(m.timestamp * 1000).toISOString()}>{time(m.timestamp)}</time>
        </div>
      )}
      {editing ? <Editor m={m} done={() => setEditing(false)} /> : <div class="content" dangerouslySetInnerHTML={{ __html: withGlyphs(m.content) }} />}
      {m.last_edit_timestamp !== undefined && !editing && <span class="edited">(edited)</span>}
      {m.failed && m.local_id && <button class="link-button" onClick={() => discard(m.local_id!)}>Dismiss</button>}
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
          <button class={`star ${starred ? 'on' : ''}`} aria-pressed={starred} aria-label={starred ? 'Unstar' : 'Star'} onClick={() => void toggleStar(m)}>{starred ? '★' : '☆'}</button>
          <button aria-label="Add reaction" aria-expanded={picking} onClick={() => setPicking(!picking)}>☺</button>
          {mine && <button aria-label="Edit" onClick={() => setEditing(true)}>✎</button>}
          {mine && !confirming && <button aria-label="Delete" onClick={() => setConfirming(true)}>🗑</button>}
          {mine && confirming && <button class="danger" onClick={() => del(`/messages/${m.id}`).catch(alertError)}>Delete?</button>}
        </div>
      )}
      {picking && <Picker m={m} close={() => setPicking(false)} />}
    </div>
  );
});
