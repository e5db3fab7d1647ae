/**
 * Drafts as Zulip keeps them: a message left unsent in the compose box is saved when the box
 * closes, on the server (POST/PATCH /drafts, register's `drafts` kept by the drafts events)
 * when the user synchronizes drafts, else in this browser only. Sending the message removes
 * its draft; restoring one aims the compose box at it again.
 */
import { ApiError, del, patch, post } from './api';
import { compose, openCompose } from './components/Compose';
import { store } from './store';
import type { State, Stream } from './types';

export type SavedDraft = { id: number; type: '' | 'stream' | 'private'; to: number[]; topic: string; content: string; timestamp: number };

const LOCAL_KEY = 'parley.drafts';

/** Whether drafts live on the server (the user's setting; Zulip's default is on). */
export function synced(s: State): boolean {
  const settings = (s.reg.user_settings as Record<string, unknown> | undefined) ?? (s.reg as Record<string, unknown>);
  return settings.enable_drafts_synchronization !== false;
}

function localDrafts(): SavedDraft[] {
  try {
    const list = JSON.parse(localStorage.getItem(LOCAL_KEY) ?? '[]') as SavedDraft[];
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function storeLocal(list: SavedDraft[]): void {
  localStorage.setItem(LOCAL_KEY, JSON.stringify(list));
  store.changed();
}

/** Every draft, newest first. */
export function listDrafts(s: State): SavedDraft[] {
  const list = synced(s) ? ((s.reg.drafts ?? []) as SavedDraft[]) : localDrafts();
  return [...list].sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
}

/** The compose box's text and destination as a draft (ids, as the API takes them). */
function fromCompose(s: State): Omit<SavedDraft, 'id'> | null {
  const d = compose.draft;
  if (!d.content.trim()) return null;
  const timestamp = Math.floor(Date.now() / 1000);
  if (d.mode === 'stream') {
    const st = [...s.streamsById.values()].find((x) => x.name.toLowerCase() === d.stream.trim().toLowerCase());
    return st ? { type: 'stream', to: [st.stream_id], topic: d.topic.trim(), content: d.content, timestamp } : { type: '', to: [], topic: '', content: d.content, timestamp };
  }
  const ids = d.to.split(',').map((x) => s.usersByEmail.get(x.trim().toLowerCase())?.user_id).filter((id): id is number => id !== undefined);
  return { type: ids.length ? 'private' : '', to: ids, topic: '', content: d.content, timestamp };
}

/** Saves what the compose box holds (when it closes), updating the draft it was restored from. */
export async function saveComposeDraft(): Promise<void> {
  const s = store.state;
  if (!s) return;
  const draft = fromCompose(s);
  if (!draft) return;
  const id = compose.draftId;
  if (!synced(s)) {
    const list = localDrafts().filter((x) => x.id !== id);
    const newId = id ?? Math.max(0, ...list.map((x) => x.id)) + 1;
    compose.draftId = newId;
    return storeLocal([{ id: newId, ...draft }, ...list]);
  }
  if (id !== null) {
    try {
      await patch(`/drafts/${id}`, { draft: JSON.stringify(draft) });
      return;
    } catch (e) {
      // Deleted meanwhile (on another device): saved as a new draft instead.
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
  }
  const r = await post<{ ids: number[] }>('/drafts', { drafts: JSON.stringify([draft]) });
  compose.draftId = r.ids[0] ?? null;
}

export async function deleteDraft(id: number): Promise<void> {
  const s = store.state!;
  if (compose.draftId === id) compose.draftId = null;
  if (!synced(s)) return storeLocal(localDrafts().filter((x) => x.id !== id));
  await del(`/drafts/${id}`);
}

/** The message of the restored draft was sent: the draft goes. */
export function sentFromDraft(): void {
  const id = compose.draftId;
  if (id === null) return;
  compose.draftId = null;
  void deleteDraft(id).catch(() => {});
}

/** Where a draft goes, for the compose box's fields. */
export function restoreDraft(d: SavedDraft): void {
  const s = store.state!;
  const emails = d.to.map((id) => s.usersById.get(id)?.email).filter((e): e is string => e !== undefined);
  const stream = d.type === 'stream' ? (s.streamsById.get(d.to[0]!) as Stream | undefined)?.name ?? '' : '';
  openCompose(d.type === 'private' ? { mode: 'private', to: emails.join(', '), content: d.content } : { mode: 'stream', stream, topic: d.topic, content: d.content });
  compose.draftId = d.id;
}
