/**
 * The compose box: a stream and topic or people, Enter to send (Shift+Enter for a new line),
 * autocomplete, a preview rendered by the server, typing notifications, and a draft in
 * localStorage that survives a reload.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api';
import type { Completion } from '../autocomplete';
import { complete } from '../autocomplete';
import { useStore } from '../hooks';
import { send, type Destination } from '../outbox';
import { stopTyping, typed } from '../typing';
import type { Stream } from '../types';
import { store } from '../store';
import { withLinkTargets } from '../content';
import { t } from '../i18n';
import { uploadFile, uploadLink, uploadPlaceholder } from '../compose/upload';
import '../compose/compose.css';
import { saveComposeDraft, sentFromDraft } from '../drafts';

const DRAFT_KEY = 'parley.compose-draft';
type Draft = { mode: 'stream' | 'private'; stream: string; topic: string; to: string; content: string };

const loadDraft = (): Draft | null => {
  try {
    return JSON.parse(localStorage.getItem(DRAFT_KEY) ?? 'null');
  } catch {
    return null;
  }
};

/** Compose's state lives outside the component so shortcuts (c, x, r) can open and aim it. */
const saved = loadDraft();
export const compose = {
  // A half-written message reopens where it was left.
  open: Boolean(saved?.content),
  draft: saved ?? { mode: 'stream', stream: '', topic: '', to: '', content: '' } as Draft,
  focus: null as null | (() => void),
  /** The message box while it is on the page (its caret is where insertions go). */
  box: null as null | HTMLTextAreaElement,
  /** The saved draft this text was restored from or saved as: saving again updates it, sending removes it. */
  draftId: null as number | null,
};

/**
 * Closes the box as Zulip does: text left in it becomes a draft (the Drafts view), and the box
 * is emptied once the draft is safe; if saving fails, the text stays where it was.
 */
export async function closeCompose(): Promise<void> {
  compose.open = false;
  stopTyping();
  store.changed();
  if (!compose.draft.content.trim()) return;
  try {
    await saveComposeDraft();
    compose.draft = { ...compose.draft, content: '' };
    compose.draftId = null;
    localStorage.setItem(DRAFT_KEY, JSON.stringify(compose.draft));
  } catch (e) {
    store.flash = t('Could not save the draft: {error}', { error: (e as Error).message });
  }
  store.changed();
}

/**
 * Puts text at the caret of the message box (at the end when the box is not shown), as
 * Zulip's insert_syntax_and_focus: a block (a quote) on lines of its own, the caret after it.
 */
export function insertAtCursor(text: string, block = false): void {
  const content = compose.draft.content;
  const el = compose.box;
  const start = el ? el.selectionStart : content.length;
  const end = el ? el.selectionEnd : content.length;
  const before = content.slice(0, start);
  const after = content.slice(end);
  let insert = text;
  if (block) {
    if (before && !before.endsWith('\n')) insert = `\n${insert}`;
    insert += '\n';
  }
  setContent(before + insert + after, before.length + insert.length);
}

/** Replaces a placeholder put in by insertAtCursor (an upload's, a quote's), wherever the text around it went. */
export function replaceInCompose(placeholder: string, text: string): void {
  const content = compose.draft.content;
  const at = content.indexOf(placeholder);
  if (at < 0) return;
  const el = compose.box;
  let caret = el?.selectionStart ?? content.length;
  if (caret > at) caret = Math.max(at + text.length, caret + text.length - placeholder.length);
  setContent(content.slice(0, at) + text + content.slice(at + placeholder.length), caret);
}

function setContent(content: string, caret: number): void {
  compose.draft = { ...compose.draft, content };
  localStorage.setItem(DRAFT_KEY, JSON.stringify(compose.draft));
  const el = compose.box;
  if (el) {
    // Now, not at the next render: the caret must not wait behind a fast typist's keys.
    el.value = content;
    el.setSelectionRange(caret, caret);
  }
  store.changed();
}

type Upload = { key: number; name: string; fraction: number };
let uploadKey = 0;

export function openCompose(d: Partial<Draft>): void {
  compose.open = true;
  compose.draft = { ...compose.draft, ...d };
  store.changed();
  setTimeout(() => compose.focus?.(), 0);
}

function destination(d: Draft): Destination | string {
  const s = store.state!;
  if (d.mode === 'stream') {
    const st = ((s.reg.subscriptions ?? []) as Stream[]).find((x) => x.name.toLowerCase() === d.stream.trim().toLowerCase());
    if (!st) return t('Choose a stream');
    if (!d.topic.trim() && s.reg.realm_mandatory_topics) return t('Enter a topic');
    return { type: 'stream', streamId: st.stream_id, topic: d.topic.trim() || '(no topic)' };
  }
  const ids: number[] = [];
  for (const part of d.to.split(',').map((x) => x.trim()).filter(Boolean)) {
    const lower = part.toLowerCase();
    const u = s.usersByEmail.get(lower) ?? [...s.usersById.values()].find((x) => x.full_name.toLowerCase() === lower);
    if (!u) return t('Unknown person: {name}', { name: part });
    ids.push(u.user_id);
  }
  return ids.length ? { type: 'private', userIds: ids } : t('Choose who to send to');
}

export function Compose() {
  const st = useStore();
  const s = st.state!;
  const d = compose.draft;
  const [problem, setProblem] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [ac, setAc] = useState<(Completion & { index: number }) | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  compose.focus = () => box.current?.focus();
  compose.box = box.current;
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  useEffect(() => {
    compose.box = box.current;
  });

  /** Each file uploads on its own, its placeholder at the caret replaced by its link when done. */
  const attach = (files: File[]) => {
    const maxMib = (s.reg as { max_file_upload_size_mib?: number }).max_file_upload_size_mib;
    for (const file of files) {
      if (maxMib !== undefined && file.size > maxMib * 1024 * 1024) {
        setProblem(t('File {name} is larger than the maximum upload size ({max} MiB).', { name: file.name, max: maxMib }));
        continue;
      }
      const key = ++uploadKey;
      const same = compose.draft.content.split(uploadPlaceholder(file.name, 1).slice(0, -3)).length;
      const placeholder = uploadPlaceholder(file.name, same);
      insertAtCursor(`${placeholder} `);
      setUploads((u) => [...u, { key, name: file.name, fraction: 0 }]);
      const progress = (fraction: number) => setUploads((u) => u.map((x) => (x.key === key ? { ...x, fraction } : x)));
      uploadFile(file, progress).then(
        (r) => replaceInCompose(placeholder, uploadLink(r.name, r.url)),
        (err: Error) => {
          replaceInCompose(`${placeholder} `, '');
          setProblem(err.message);
        },
      ).finally(() => setUploads((u) => u.filter((x) => x.key !== key)));
    }
  };
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  const onDragOver = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    if (!dragging) setDragging(true);
  };
  const onDrop = (e: DragEvent) => {
    setDragging(false);
    const files = [...(e.dataTransfer?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    attach(files);
  };
  const onPaste = (e: ClipboardEvent) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    attach(files);
  };

  const update = (patch: Partial<Draft>) => {
    compose.draft = { ...compose.draft, ...patch };
    localStorage.setItem(DRAFT_KEY, JSON.stringify(compose.draft));
    store.changed();
  };

  useEffect(() => () => stopTyping(), []);
  // Topic autocomplete: the chosen stream's topics (GET /users/me/{id}/topics).
  const [topics, setTopics] = useState<string[]>([]);
  const composeStream = ((s.reg.subscriptions ?? []) as Stream[]).find((x) => x.name.toLowerCase() === d.stream.trim().toLowerCase());
  useEffect(() => {
    if (!composeStream || !compose.open) return setTopics([]);
    let live = true;
    get<{ topics: Array<{ name: string }> }>(`/users/me/${composeStream.stream_id}/topics`).then((r) => live && setTopics(r.topics.map((t) => t.name)), () => {});
    return () => {
      live = false;
    };
  }, [composeStream?.stream_id, compose.open]);
  // An empty compose box follows the view to its stream and topic or people, as in Zulip.
  const narrow = st.list.narrow;
  useEffect(() => {
    if (compose.draft.content.trim()) return;
    const stream = narrow.find((t) => t.operator === 'stream')?.operand;
    const topic = narrow.find((t) => t.operator === 'topic')?.operand;
    const pm = narrow.find((t) => t.operator === 'pm-with')?.operand;
    if (stream) update({ mode: 'stream', stream, topic: topic ?? '' });
    else if (pm) update({ mode: 'private', to: pm.split(',').join(', ') });
  }, [narrow]);

  const submit = () => {
    const to = destination(compose.draft);
    if (typeof to === 'string') return setProblem(to);
    if (!compose.draft.content.trim()) return setProblem(t('Write a message first'));
    setProblem(null);
    setPreview(null);
    stopTyping();
    send(to, compose.draft.content);
    sentFromDraft();
    update({ content: '' });
  };

  const pick = (i: number) => {
    if (!ac) return;
    const text = compose.draft.content;
    const item = ac.items[i]!;
    const next = text.slice(0, ac.start) + item.insert + text.slice(ac.end);
    const caret = ac.start + item.insert.length;
    // The text and caret change now, in the same task as the key: a caret moved later (a
    // timer) would land behind whatever a fast typist has typed meanwhile.
    const el = box.current;
    if (el) {
      el.value = next;
      el.setSelectionRange(caret, caret);
    }
    update({ content: next });
    setAc(null);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (ac) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = ac.items.length;
        setAc({ ...ac, index: (ac.index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n });
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(ac.index);
        return;
      }
      if (e.key === 'Escape') {
        e.stopPropagation();
        setAc(null);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement;
    update({ content: el.value });
    const c = complete(el.value, el.selectionStart, s);
    setAc(c ? { ...c, index: 0 } : null);
    const to = destination(compose.draft);
    typed(typeof to === 'string' || !el.value ? null : to);
  };

  const togglePreview = async () => {
    if (preview !== null) return setPreview(null);
    try {
      const r = await post<{ rendered: string }>('/messages/render', { content: compose.draft.content });
      setPreview(r.rendered);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };

  if (!compose.open) {
    return (
      <div class="compose-closed">
        <button onClick={() => openCompose({ mode: 'stream' })}>{t('New topic')}</button>
        <button onClick={() => openCompose({ mode: 'private' })}>{t('New private message')}</button>
      </div>
    );
  }
  const subs = (s.reg.subscriptions ?? []) as Stream[];
  return (
    <form class={`compose ${dragging ? 'dropping' : ''}`} aria-label={t('Compose')} onSubmit={(e) => { e.preventDefault(); submit(); }}
      onDragOver={onDragOver} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
      <div class="compose-to">
        <select aria-label={t('Message type')} value={d.mode} onChange={(e) => update({ mode: e.currentTarget.value as Draft['mode'] })}>
          <option value="stream">{t('Stream')}</option>
          <option value="private">{t('Private')}</option>
        </select>
        {d.mode === 'stream' ? (
          <>
            <input aria-label={t('Stream')} list="compose-streams" placeholder={t('Stream')} value={d.stream} onInput={(e) => update({ stream: e.currentTarget.value })} />
            <datalist id="compose-streams">{subs.map((x) => <option key={x.stream_id} value={x.name} />)}</datalist>
            <input aria-label={t('Topic')} list="compose-topics" placeholder={t('Topic')} value={d.topic} onInput={(e) => update({ topic: e.currentTarget.value })} />
            <datalist id="compose-topics">{topics.slice(0, 50).map((x) => <option key={x} value={x} />)}</datalist>
          </>
        ) : (
          <>
            <input aria-label={t('To')} list="compose-people" placeholder={t('Emails, comma separated')} value={d.to} onInput={(e) => update({ to: e.currentTarget.value })} />
            <datalist id="compose-people">{[...s.usersById.values()].filter((u) => u.is_active !== false).map((u) => <option key={u.user_id} value={u.email}>{u.full_name}</option>)}</datalist>
          </>
        )}
        <button type="button" class="link-button" aria-label={t('Close compose box')} onClick={() => void closeCompose()}>✕</button>
      </div>
      {preview !== null ? (
        <div class="preview content" aria-label={t('Preview')} dangerouslySetInnerHTML={{ __html: withLinkTargets(preview) }} />
      ) : (
        <textarea ref={box} aria-label={t('Message')} placeholder={t('Message (Enter to send, Shift+Enter for a new line)')} value={d.content} onInput={onInput} onKeyDown={onKeyDown} onPaste={onPaste} />
      )}
      {ac && (
        <ul class="autocomplete" role="listbox" aria-label={t('Suggestions')}>
          {ac.items.map((it, i) => (
            <li key={it.insert} role="option" aria-selected={i === ac.index} class={i === ac.index ? 'active' : ''} onMouseDown={(e) => { e.preventDefault(); pick(i); }}>{it.label}</li>
          ))}
        </ul>
      )}
      {uploads.length > 0 && (
        <ul class="uploads" aria-label={t('Uploads')}>
          {uploads.map((u) => (
            <li key={u.key}>
              <span>{t('Uploading {name}…', { name: u.name })}</span>
              <progress max={100} value={Math.round(u.fraction * 100)} aria-label={t('Uploading {name}…', { name: u.name })} />
            </li>
          ))}
        </ul>
      )}
      <div class="compose-bar">
        {problem && <span class="error" role="alert">{problem}</span>}
        <input ref={picker} type="file" multiple hidden aria-hidden="true" tabIndex={-1}
          onChange={(e) => { const el = e.currentTarget; attach([...(el.files ?? [])]); el.value = ''; }} />
        <button type="button" class="attach" aria-label={t('Upload files')} title={t('Upload files')} onClick={() => picker.current?.click()}>📎</button>
        <button type="button" aria-pressed={preview !== null} onClick={togglePreview}>{preview !== null ? t('Edit') : t('Preview')}</button>
        <button type="submit">{t('Send')}</button>
      </div>
    </form>
  );
}
