import type { Tx } from './transaction.js';
import type { Q, UserRow } from '../store/rows.js';
import { drafts, type DraftRecord } from '../store/repos/drafts.js';
import { users } from '../store/repos/users.js';
import { accessStreamById } from '../access/stream.js';
import { presentDraft } from '../presenters/draft.js';
import { truncateTopic } from './message-send.js';
import { userSettings } from '../lib/user-settings.js';
import { fitsIdColumn } from '../lib/ids.js';
import { truncateContent } from '../lib/message-content.js';
import { badRequest, draftDoesNotExist, draftsSyncDisabled } from '../errors.js';

/**
 * Synchronised drafts (Zulip's zerver/lib/drafts.py): private to their owner, whose other
 * clients hear of each change through drafts events. Nothing here is ever sent to anyone
 * else, and another user's draft is answered exactly like a missing one.
 */
export type DraftType = '' | 'stream' | 'private';

/** A draft as the client sent it, its syntax already checked at the edge. */
export interface DraftInput {
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  timestamp?: number | undefined;
}

type DraftFields = Omit<DraftRecord, 'id' | 'user_id'>;

/** 9999-12-31T23:59:59Z: past it Zulip's datetime conversion fails (a 500 there, refused here). */
const MAX_TIMESTAMP = 253_402_300_799;

/** Zulip's draft_endpoint: every drafts endpoint is refused while the user keeps drafts local. */
export function checkDraftsSynchronized(user: UserRow): void {
  if (!userSettings(user.settings).enable_drafts_synchronization) throw draftsSyncDisabled();
}

export async function doCreateDrafts(tx: Tx, user: UserRow, inputs: DraftInput[]): Promise<number[]> {
  checkDraftsSynchronized(user);
  // All or nothing: every draft is validated before the first is written.
  const valid: DraftFields[] = [];
  for (const input of inputs) valid.push(await validatedDraft(tx.db, user, input));
  const created: DraftRecord[] = [];
  for (const fields of valid) created.push(await drafts.insert(tx.db, { user_id: user.id, ...fields }));
  tx.notify({ type: 'drafts', op: 'add', drafts: created.map(presentDraft) }, [user.id], user.realm_id);
  return created.map((d) => d.id);
}

/** PATCH /drafts/{id}: the draft is replaced as a whole. */
export async function doEditDraft(tx: Tx, user: UserRow, draftId: number, input: DraftInput): Promise<void> {
  checkDraftsSynchronized(user);
  const existing = await ownDraft(tx.db, user, draftId);
  const fields = await validatedDraft(tx.db, user, input);
  await drafts.update(tx.db, existing.id, fields);
  tx.notify({ type: 'drafts', op: 'update', draft: presentDraft({ ...existing, ...fields }) }, [user.id], user.realm_id);
}

export async function doDeleteDraft(tx: Tx, user: UserRow, draftId: number): Promise<void> {
  checkDraftsSynchronized(user);
  const existing = await ownDraft(tx.db, user, draftId);
  await drafts.deleteById(tx.db, existing.id);
  tx.notify({ type: 'drafts', op: 'remove', draft_id: existing.id }, [user.id], user.realm_id);
}

/**
 * What turning enable_drafts_synchronization off does (Zulip's do_change_user_setting):
 * the stored drafts go, and no event says so, so that clients keep their local copies.
 */
export async function doDeleteAllDrafts(tx: Tx, userId: number): Promise<number> {
  return drafts.deleteAllOfUser(tx.db, userId);
}

async function ownDraft(q: Q, user: UserRow, draftId: number): Promise<DraftRecord> {
  const found = fitsIdColumn(draftId) ? await drafts.findOfUser(q, user.id, draftId) : undefined;
  if (!found) throw draftDoesNotExist();
  return found;
}

/**
 * Zulip's further_validated_draft_dict, in its order: content, timestamp, then the
 * addressee. Only stream drafts keep a topic; a private draft without anyone to send to,
 * like one of type "", is stored unaddressed.
 */
async function validatedDraft(q: Q, user: UserRow, d: DraftInput): Promise<DraftFields> {
  const content = truncateContent(d.content);
  if (content.includes('\u0000')) throw badRequest('Content must not contain null bytes');
  // Zulip keeps microseconds but shows whole seconds; Parley keeps what it shows.
  const timestamp = Math.round((d.timestamp ?? Date.now() / 1000) * 1e6) / 1e6;
  if (timestamp < 0) throw badRequest('Timestamp must not be negative.');
  if (timestamp > MAX_TIMESTAMP) throw badRequest('Invalid timestamp');
  const fields = { content, last_edit_time: Math.floor(timestamp) };
  if (d.type === 'stream') {
    const topic = truncateTopic(d.topic);
    if (topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
    if (d.to.length !== 1) throw badRequest('Must specify exactly 1 stream ID for stream messages');
    const { stream } = await accessStreamById(q, user, d.to[0]!);
    return { ...fields, type: 'stream', recipient: JSON.stringify([stream.id]), topic };
  }
  if (d.type === 'private' && d.to.length > 0) {
    return { ...fields, type: 'private', recipient: JSON.stringify(await privateDraftTo(q, user, d.to)), topic: '' };
  }
  return { ...fields, type: '', recipient: '[]', topic: '' };
}

/**
 * The conversation's `to` as Zulip answers it from its recipient: the other people by id,
 * the owner left out, or the owner alone for a note to self. Every id must be a user of
 * the organization, and an active one (Zulip's recipient checks and their messages).
 */
async function privateDraftTo(q: Q, user: UserRow, to: number[]): Promise<number[]> {
  const ids = [...new Set(to)].sort((a, b) => a - b);
  const found = new Map((await users.listByIds(q, ids.filter(fitsIdColumn))).filter((u) => u.realm_id === user.realm_id).map((u) => [u.id, u]));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
  const inactive = ids.map((id) => found.get(id)!).find((u) => u.is_active !== 1);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  const others = ids.filter((id) => id !== user.id);
  return others.length > 0 ? others : [user.id];
}

