/**
 * Drafts (Zulip's drafts overlay, here a view): messages left unsent when the compose box
 * closed, newest first, each with where it was going; restore puts it back in the compose box
 * (sending it then removes the draft), delete removes it. Opened with `d`, at #drafts.
 */
import { useRef, useState } from 'preact/hooks';
import { deleteDraft, listDrafts, restoreDraft, synced, type SavedDraft } from '../../drafts';
import { useStore } from '../../hooks';
import { dateFormat, t } from '../../i18n';
import type { Narrow } from '../../narrow';
import type { State } from '../../types';
import { showNarrow } from '../../view';
import { moveFocus, names } from './conversations';
import './views.css';

function destination(d: SavedDraft, s: State): { label: string; narrow: Narrow | null } {
  if (d.type === 'stream') {
    const st = s.streamsById.get(d.to[0]!);
    if (!st) return { label: t('Unknown stream'), narrow: null };
    return { label: d.topic ? `#${st.name} > ${d.topic}` : `#${st.name}`, narrow: [{ operator: 'stream', operand: st.name }, ...(d.topic ? [{ operator: 'topic', operand: d.topic }] : [])] };
  }
  if (d.type === 'private') {
    const emails = d.to.map((id) => s.usersById.get(id)?.email ?? '').join(',');
    return { label: t('To: {names}', { names: names(d.to, s) }), narrow: [{ operator: 'pm-with', operand: emails }] };
  }
  return { label: t('No recipient'), narrow: null };
}

export default function Drafts() {
  const st = useStore();
  const s = st.state!;
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const drafts = listDrafts(s);
  const run = (f: () => Promise<void>) => f().then(() => setError(null), (e) => setError((e as Error).message));
  return (
    <section class="special-view drafts-view" aria-labelledby="drafts-title">
      <h2 id="drafts-title">{t('Drafts')}</h2>
      <p class="view-note">{synced(s) ? t('Drafts are saved on the server and reach your other devices.') : t('Drafts are saved in this browser only (draft synchronization is off in your settings).')}</p>
      {error && <p class="error" role="alert">{error}</p>}
      {drafts.length === 0 && <p class="view-empty">{t('No drafts. A message you leave unsent when closing the compose box is kept here.')}</p>}
      <ul class="draft-list" ref={list} onKeyDown={(e) => moveFocus(e, list.current)}>
        {drafts.map((d) => {
          const to = destination(d, s);
          return (
            <li key={d.id} class="draft" aria-label={to.label}>
              <div class="draft-head">
                <span class="draft-to">{to.label}</span>
                <time dateTime={new Date(d.timestamp * 1000).toISOString()}>{dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(d.timestamp * 1000)}</time>
              </div>
              <p class="draft-content">{d.content.length > 300 ? `${d.content.slice(0, 300)}…` : d.content}</p>
              <div class="draft-actions">
                <button data-row onClick={() => {
                  if (to.narrow) void showNarrow(to.narrow);
                  restoreDraft(d);
                }}>{t('Restore')}</button>
                <button onClick={() => void run(() => deleteDraft(d.id))}>{t('Delete')}</button>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
