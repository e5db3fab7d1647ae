import type { MessageRow, Q, RealmRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { users } from '../store/repos/users.js';
import { flagsFromMask } from '../lib/message-flags.js';
import { avatarUrl } from './user.js';

export interface WireMessage { id: number; [key: string]: unknown }

export interface MessagePresentOpts {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  realm: RealmRow;
}

export interface PmUser { id: number; email: string; full_name: string; is_mirror_dummy: boolean }

/** Who is in each message's conversation, keyed by recipient id. */
export interface RecipientInfo {
  type: number;
  /** Stream name for streams; members (sorted by id) for private messages. */
  streamName?: string;
  streamId?: number;
  members?: PmUser[];
}

export const pmUser = (u: Pick<UserRow, 'id' | 'email' | 'full_name'>): PmUser => ({ id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: false });

/** Loads the recipient info for a batch of messages in three queries at most. */
export async function loadRecipients(q: Q, rows: Array<Pick<MessageRow, 'recipient_id' | 'sender_id'>>): Promise<Map<number, RecipientInfo>> {
  const ids = [...new Set(rows.map((r) => r.recipient_id))];
  const out = new Map<number, RecipientInfo>();
  if (ids.length === 0) return out;
  const recipients = await q.selectFrom('recipient').selectAll().where('id', 'in', ids).execute();
  const streamIds = recipients.filter((r) => r.type === 2).map((r) => r.type_id);
  const streamRows = streamIds.length ? await q.selectFrom('stream').select(['id', 'name']).where('id', 'in', streamIds).execute() : [];
  const streamName = new Map(streamRows.map((s) => [s.id, s.name]));
  const huddles = await messages.huddleMembers(q, recipients.filter((r) => r.type === 3).map((r) => r.id));
  const userIds = new Set<number>();
  for (const r of recipients) if (r.type === 1) userIds.add(r.type_id);
  for (const m of huddles.values()) for (const id of m) userIds.add(id);
  for (const r of rows) userIds.add(r.sender_id);
  const people = new Map((await users.listByIds(q, [...userIds])).map((u) => [u.id, pmUser(u)]));
  for (const r of recipients) {
    if (r.type === 2) out.set(r.id, { type: 2, streamId: r.type_id, streamName: streamName.get(r.type_id) ?? '' });
    else if (r.type === 3) out.set(r.id, { type: 3, members: (huddles.get(r.id) ?? []).map((id) => people.get(id)!).filter(Boolean) });
    else out.set(r.id, { type: 1, members: [people.get(r.type_id)!].filter(Boolean) });
  }
  return out;
}

export function displayRecipient(info: RecipientInfo | undefined, senderId: number, sender: PmUser | undefined): string | PmUser[] {
  if (!info) return [];
  if (info.type === 2) return info.streamName ?? '';
  const members = [...(info.members ?? [])];
  if (sender && !members.some((u) => u.id === senderId)) members.push(sender);
  return members.sort((a, b) => a.id - b.id);
}

/**
 * The Message object of GET /messages, GET /messages/{id} and message events, in the
 * order of `items`. Batch-loads senders, conversations and reactions. `flags` undefined
 * leaves the field out; null is a message the reader did not receive.
 */
export async function loadWireMessages(q: Q, items: Array<{ id: number; flags?: number | null }>, opts: MessagePresentOpts): Promise<WireMessage[]> {
  if (items.length === 0) return [];
  const rows = await messages.listByIds(q, items.map((i) => i.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const senders = new Map((await users.listByIds(q, [...new Set(rows.map((r) => r.sender_id))])).map((u) => [u.id, u]));
  const recipients = await loadRecipients(q, rows);
  const reactions = await loadReactions(q, rows.map((r) => r.id));
  const out: WireMessage[] = [];
  for (const item of items) {
    const m = byId.get(item.id);
    const sender = m ? senders.get(m.sender_id) : undefined;
    if (!m || !sender) continue;
    out.push(presentMessage(m, sender, recipients.get(m.recipient_id), opts, {
      ...(item.flags !== undefined ? { flags: flagsFromMask(item.flags) } : {}), reactions: reactions.get(m.id) ?? [],
    }));
  }
  return out;
}

export async function loadReactions(q: Q, ids: number[]): Promise<Map<number, Array<Record<string, unknown>>>> {
  const rows = await messages.reactionsFor(q, ids);
  const out = new Map<number, Array<Record<string, unknown>>>();
  if (rows.length === 0) return out;
  const people = new Map((await users.listByIds(q, [...new Set(rows.map((r) => r.user_id))])).map((u) => [u.id, u]));
  for (const r of rows) {
    const u = people.get(r.user_id);
    const list = out.get(r.message_id) ?? [];
    list.push({
      emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id,
      user: { id: r.user_id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false },
    });
    out.set(r.message_id, list);
  }
  return out;
}

export function presentMessage(
  m: MessageRow, sender: UserRow, recipient: RecipientInfo | undefined, opts: MessagePresentOpts,
  extra: { flags?: string[]; reactions: Array<Record<string, unknown>> },
): WireMessage {
  const isStream = m.stream_id !== null;
  const out: WireMessage = {
    id: m.id,
    type: isStream ? 'stream' : 'private',
    sender_id: m.sender_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: opts.realm.string_id,
    avatar_url: avatarUrl(sender, opts.clientGravatar),
    client: m.client,
    content: opts.applyMarkdown ? m.rendered_content : m.content,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    display_recipient: displayRecipient(recipient, m.sender_id, pmUser(sender)),
    recipient_id: m.recipient_id,
    subject: m.topic,
    topic_links: [],
    timestamp: m.date_sent,
    is_me_message: m.is_me_message === 1,
    reactions: extra.reactions,
    submessages: [],
  };
  if (isStream) out.stream_id = m.stream_id;
  if (extra.flags) out.flags = extra.flags;
  if (m.last_edit_time !== null) {
    out.last_edit_timestamp = m.last_edit_time;
    if (m.edit_history) out.edit_history = JSON.parse(m.edit_history) as unknown;
  }
  return out;
}
