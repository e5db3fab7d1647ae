import { useState } from 'preact/hooks';
import { ApiError, del, post } from '../api';
import { useStore } from '../hooks';
import type { Stream } from '../types';

/** Every stream one may join, with subscribe/unsubscribe, and a form to create one. */
export function Streams({ close }: { close: () => void }) {
  const s = useStore().state!;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priv, setPriv] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const subscribed = new Set(((s.reg.subscriptions ?? []) as Stream[]).map((x) => x.stream_id));
  const all = [...s.streamsById.values()].sort((a, b) => a.name.localeCompare(b.name));
  const run = (f: () => Promise<unknown>) => f().then(() => setNote(null), (e) => setNote(e instanceof ApiError ? e.message : String(e)));
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="streams-title">
      <div class="modal-box">
        <h2 id="streams-title">Streams</h2>
        <ul class="stream-browser">
          {all.map((st) => (
            <li key={st.stream_id}>
              <span>{st.invite_only ? '🔒' : '#'} {st.name}</span>
              {subscribed.has(st.stream_id)
                ? <button onClick={() => run(() => del('/users/me/subscriptions', { subscriptions: [st.name] }))}>Unsubscribe</button>
                : <button onClick={() => run(() => post('/users/me/subscriptions', { subscriptions: [{ name: st.name }] }))}>Subscribe</button>}
            </li>
          ))}
        </ul>
        <form onSubmit={(e) => { e.preventDefault(); void run(() => post('/users/me/subscriptions', { subscriptions: [{ name: name.trim(), description }], invite_only: priv }).then(() => setName(''))); }}>
          <h3>Create a stream</h3>
          <label>Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <label>Description <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></label>
          <label><input type="checkbox" checked={priv} onChange={(e) => setPriv(e.currentTarget.checked)} /> Private</label>
          <button type="submit">Create</button>
        </form>
        {note && <p class="error" role="alert">{note}</p>}
        <button onClick={close}>Close</button>
      </div>
    </div>
  );
}
