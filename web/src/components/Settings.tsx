import { useState } from 'preact/hooks';
import { ApiError, patch } from '../api';
import { useStore } from '../hooks';
import { applyTheme, type Theme, savedTheme } from '../theme';

/** Name, password and theme (light, dark or the system's, the default). */
export function Settings({ close }: { close: () => void }) {
  const s = useStore().state!;
  const me = s.usersById.get(s.me)!;
  const [name, setName] = useState(me.full_name);
  const [oldPw, setOldPw] = useState('');
  const [newPw, setNewPw] = useState('');
  const [theme, setTheme] = useState<Theme>(savedTheme());
  const [note, setNote] = useState<string | null>(null);
  const run = async (f: () => Promise<unknown>, ok: string) => {
    try {
      await f();
      setNote(ok);
    } catch (e) {
      setNote(e instanceof ApiError ? e.message : 'Could not reach the server.');
    }
  };
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title">
      <div class="modal-box">
        <h2 id="settings-title">Settings</h2>
        <form onSubmit={(e) => { e.preventDefault(); void run(() => patch('/settings', { full_name: name }), 'Name saved.'); }}>
          <label>Full name <input value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <button type="submit">Save name</button>
        </form>
        <form onSubmit={(e) => { e.preventDefault(); void run(() => patch('/settings', { old_password: oldPw, new_password: newPw }), 'Password changed.'); }}>
          <label>Current password <input type="password" autocomplete="current-password" value={oldPw} onInput={(e) => setOldPw(e.currentTarget.value)} /></label>
          <label>New password <input type="password" autocomplete="new-password" value={newPw} onInput={(e) => setNewPw(e.currentTarget.value)} /></label>
          <button type="submit">Change password</button>
        </form>
        <fieldset>
          <legend>Theme</legend>
          {(['system', 'light', 'dark'] as Theme[]).map((t) => (
            <label key={t}><input type="radio" name="theme" checked={theme === t} onChange={() => { setTheme(t); applyTheme(t); }} /> {t === 'system' ? 'Follow the system' : t}</label>
          ))}
        </fieldset>
        {note && <p role="status">{note}</p>}
        <button onClick={close}>Close</button>
      </div>
    </div>
  );
}
