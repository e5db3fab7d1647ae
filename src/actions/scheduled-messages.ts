import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { scheduledMessages, type ScheduledMessageFields, type ScheduledMessageRecord } from '../store/repos/scheduled-messages.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { SCHEDULED_NOT_HELD } from '../store/message-batch.js';
import { checkContent, checkTopic, privateRecipients, sendMessage, streamForSend, type Addressee } from './message-send.js';
import { privateMessagesAllowed, wildcardMentionAllowed } from '../access/realm-policy.js';
import { renderMessage } from '../markdown/bounded.js';
import { renderContextFor } from '../reads/render-context.js';
import { subscriberIds } from '../reads/streams.js';
import { notificationBot } from '../reads/system-bots.js';
import { presentScheduledMessage } from '../presenters/scheduled-message.js';
import { publish } from '../events/publish.js';
import { isHumanClient } from '../lib/client-name.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import { fitsIdColumn } from '../lib/ids.js';
import { isoWithOffset } from '../lib/time.js';
import { parseScheduledTo } from '../lib/scheduled-to.js';
import { ApiError, badRequest, privateMessagesDisabled, wildcardMentionNotAllowed } from '../errors.js';

/**
 * Scheduled messages (Zulip's zerver/actions/scheduled_messages.py, feature levels 173-184):
 * checked as a send is when scheduled and again when due, then sent through the send
 * action itself, so that the message, its flags, events and notifications are a normal
 * send's. Private to their sender: another user's is answered exactly like a missing one,
 * and every scheduled_messages event goes to the sender alone.
 */

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: a message found due later than this fails rather than arrive out of its time. */
export const LATE_CUTOFF_SECS = 10 * 60;

export const scheduledMessageDoesNotExist = () => new ApiError('BAD_REQUEST', 'Scheduled message does not exist', 404);
export const deliveryTimeNotInFuture = () => badRequest('Scheduled delivery time must be in the future.');

export type ScheduledType = 'stream' | 'private';

/** `to` read for a type (lib/scheduled-to.ts), or Zulip's error. */
export function scheduledTo(type: ScheduledType, raw: string): number[] {
  const to = parseScheduledTo(type, raw);
  if (typeof to === 'string') throw badRequest(to);
  return to;
}

/** A message to schedule, its `to` already parsed at the edge (a stream id, or user ids). */
export interface ScheduleInput {
  type: ScheduledType;
  to: number[];
  topic: string | undefined;
  content: string;
  client: string;
  deliverAt: number;
  readBySender: boolean | undefined;
}

/** What an edit changes; undefined: kept. `to` is read as the message's type, new or kept, asks. */
export interface ScheduledEdit {
  type?: ScheduledType | undefined;
  toRaw?: string | undefined;
  topic?: string | undefined;
  content?: string | undefined;
  deliverAt?: number | undefined;
  client: string;
}

type Checked = Omit<ScheduledMessageFields, 'client' | 'scheduled_timestamp'>;

const addresseeOf = (type: ScheduledType, to: number[]): Addressee =>
  type === 'stream' ? { kind: 'stream', id: to[0]! } : { kind: 'private', ids: to };

/**
 * Zulip's check_message without the send: the sender may send this now (stream access and
 * posting policy, private-message policy, wildcard mentions), and how it renders now.
 */
async function checkScheduled(q: Q, level: number, realm: RealmRow, sender: UserRow, type: ScheduledType, to: number[], rawTopic: string | undefined, rawContent: string): Promise<Checked> {
  const content = checkContent(rawContent);
  let checked: Omit<Checked, 'content' | 'rendered_content'>;
  let audience = 0;
  if (type === 'stream') {
    const stream = await streamForSend(q, sender, realm, { id: to[0]! }, level);
    const topic = checkTopic(rawTopic, realm, level);
    audience = (await subscriberIds(q, stream.id)).length;
    checked = { type, stream_id: stream.id, recipient: '[]', topic };
  } else {
    const others = await privateRecipients(q, sender, { ids: to });
    if (!privateMessagesAllowed(realm, sender, others)) throw privateMessagesDisabled();
    // Zulip's get_recipient_ids: the other people, or the sender alone for a note to self.
    const ids = others.map((u) => u.id).filter((id) => id !== sender.id).sort((a, b) => a - b);
    checked = { type, stream_id: null, recipient: JSON.stringify(ids.length > 0 ? ids : [sender.id]), topic: '' };
  }
  const rendered = await renderMessage(content, await renderContextFor(q, realm, sender, content));
  if (type === 'stream' && rendered.wildcardMentioned && !await wildcardMentionAllowed(q, sender, realm, audience)) throw wildcardMentionNotAllowed();
  return { ...checked, content, rendered_content: rendered.html };
}

const isToSelf = (c: Checked, sender: UserRow) => c.type === 'private' && c.recipient === JSON.stringify([sender.id]);

/** POST /scheduled_messages. `now`: the caller's clock (the delivery time must be after it). */
export async function scheduleMessage(ctx: AppContext, realm: RealmRow, sender: UserRow, input: ScheduleInput, now: number): Promise<number> {
  if (input.deliverAt <= now) throw deliveryTimeNotInFuture();
  const checked = await checkScheduled(ctx.store.db, ctx.config.featureLevel, realm, sender, input.type, input.to, input.topic, input.content);
  // Zulip's default: read when sent from a non-API client, unless it is a note to self.
  const readBySender = input.readBySender ?? (isHumanClient(input.client) && !isToSelf(checked, sender));
  return transact(ctx, async (tx) => {
    const row = {
      realm_id: realm.id, sender_id: sender.id, ...checked, client: input.client, scheduled_timestamp: input.deliverAt,
      read_by_sender: readBySender ? 1 : 0, delivered_message_id: null, failure_message: null, claimed_until: null,
    };
    const id = await scheduledMessages.insert(tx.db, row);
    tx.notify({ type: 'scheduled_messages', op: 'add', scheduled_messages: [presentScheduledMessage({ ...row, id, failed: 0 })] }, [sender.id], realm.id);
    return id;
  });
}

async function ownScheduled(q: Q, user: UserRow, id: number): Promise<ScheduledMessageRecord> {
  const found = fitsIdColumn(id) ? await scheduledMessages.findOfUser(q, user.id, id) : undefined;
  if (!found) throw scheduledMessageDoesNotExist();
  return found;
}

const currentTo = (row: ScheduledMessageRecord): number[] => row.type === 'stream' ? [row.stream_id!] : JSON.parse(row.recipient) as number[];

/** PATCH /scheduled_messages/{id} (Zulip's edit_scheduled_message, in its order of checks). */
export async function editScheduledMessage(ctx: AppContext, realm: RealmRow, sender: UserRow, id: number, edit: ScheduledEdit): Promise<void> {
  const q = ctx.store.db;
  const existing = await ownScheduled(q, sender, id);
  if (existing.delivered === 1) throw badRequest('Scheduled message was already sent');
  // A failed one is only tried again at a new time.
  if (existing.failed === 1 && edit.deliverAt === undefined) throw deliveryTimeNotInFuture();
  let checked: Checked = existing;
  const type = edit.type ?? existing.type;
  const to = edit.toRaw !== undefined ? scheduledTo(type, edit.toRaw) : currentTo(existing);
  const fresh = edit.type !== undefined || edit.toRaw !== undefined || edit.content !== undefined
    ? await checkScheduled(q, ctx.config.featureLevel, realm, sender, type, to, edit.topic ?? existing.topic, edit.content ?? existing.content)
    : undefined;
  if (fresh && (edit.type !== undefined || edit.toRaw !== undefined)) {
    checked = { ...checked, type: fresh.type, stream_id: fresh.stream_id, recipient: fresh.recipient, topic: fresh.topic };
  } else if (edit.topic !== undefined && existing.type === 'stream') {
    // A private one's topic is ignored, as Zulip ignores it.
    checked = { ...checked, topic: checkTopic(edit.topic, realm, ctx.config.featureLevel) };
  }
  if (fresh && edit.content !== undefined) checked = { ...checked, content: fresh.content, rendered_content: fresh.rendered_content };
  const fields: ScheduledMessageFields = {
    type: checked.type, stream_id: checked.stream_id, recipient: checked.recipient, topic: checked.topic, content: checked.content,
    rendered_content: checked.rendered_content, client: edit.client, scheduled_timestamp: edit.deliverAt ?? existing.scheduled_timestamp,
  };
  await transact(ctx, async (tx) => {
    // Re-read inside the transaction: a delivery may have committed since the checks.
    const now = await scheduledMessages.findOfUser(tx.db, sender.id, existing.id);
    if (!now) throw scheduledMessageDoesNotExist();
    if (now.delivered === 1) throw badRequest('Scheduled message was already sent');
    await scheduledMessages.update(tx.db, existing.id, fields);
    tx.notify({ type: 'scheduled_messages', op: 'update', scheduled_message: presentScheduledMessage({ ...existing, ...fields, failed: 0 }) }, [sender.id], realm.id);
  });
}

/** DELETE /scheduled_messages/{id}. */
export async function doDeleteScheduledMessage(tx: Tx, sender: UserRow, id: number): Promise<void> {
  const existing = await ownScheduled(tx.db, sender, id);
  await scheduledMessages.deleteById(tx.db, existing.id);
  tx.notify({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: existing.id }, [sender.id], sender.realm_id);
}

/** Failures nobody is told of (Zulip's RealmDeactivatedError, UserDeactivatedError): there is nobody to tell. */
class SilentFailure extends Error {}

/**
 * Delivers one due scheduled message whose lease (`lease`, taken by the caller) this node
 * holds. The send stores only while that lease still holds (store/message-batch.ts), so a
 * message is sent at most once whatever the nodes do, and not after an edit or deletion
 * that came meanwhile. A send that is refused marks it failed, and the sender hears so
 * from Notification Bot (Zulip's try_deliver_one_scheduled_message).
 */
export async function deliverScheduledMessage(ctx: AppContext, id: number, now: number, lease: number): Promise<void> {
  const q = ctx.store.db;
  const row = await scheduledMessages.findById(q, id);
  if (!row || row.delivered === 1 || row.failed === 1 || row.claimed_until !== lease) return;
  const realm = await realms.findById(q, row.realm_id);
  const sender = await users.findById(q, row.sender_id);
  if (!realm || !sender) return;
  try {
    if (realm.deactivated === 1 || sender.is_active !== 1) throw new SilentFailure('Account is deactivated');
    if (now > row.scheduled_timestamp + LATE_CUTOFF_SECS) throw badRequest('Message could not be sent at the scheduled time.');
    // Checked again by the send: permissions may have changed since it was scheduled.
    await sendMessage(ctx, realm, sender, {
      to: addresseeOf(row.type, currentTo(row)), topic: row.topic, content: row.content, client: row.client,
      readBySender: row.read_by_sender === 1, scheduled: [row.id, lease],
    });
  } catch (err) {
    // Another node delivered it, or it was edited or deleted meanwhile: nothing to do here.
    if ((err as Error)?.message === SCHEDULED_NOT_HELD) return;
    if (!(err instanceof ApiError) && !(err instanceof SilentFailure)) ctx.log.error({ err, scheduledMessageId: id }, 'scheduled message delivery failed');
    const reason = err instanceof ApiError ? err.message : 'Internal server error';
    await transact(ctx, async (tx) => {
      if (!(await scheduledMessages.markFailed(tx.db, row.id, reason))) return;
      if (err instanceof SilentFailure) return;
      tx.notify({ type: 'scheduled_messages', op: 'update', scheduled_message: presentScheduledMessage({ ...row, failed: 1 }) }, [sender.id], realm.id);
      tx.later((c) => notifyFailure(c, realm, sender, row.scheduled_timestamp, reason));
    });
    return;
  }
  publish(ctx.bus, realm.id, { type: 'scheduled_messages', op: 'remove', scheduled_message_id: row.id }, [sender.id]);
  if (ctx.bus.unsettled) await ctx.bus.settled();
}

/** Zulip's send_failed_scheduled_message_notification: a private message from Notification Bot. */
async function notifyFailure(ctx: AppContext, realm: RealmRow, sender: UserRow, at: number, reason: string): Promise<void> {
  const bot = await notificationBot(ctx.store.db, realm.id);
  const content = `The message you scheduled for <time:${isoWithOffset(at)}> was not sent because of the following error:\n\n`
    + `> ${reason}\n\n[View scheduled messages](#scheduled)`;
  await sendMessage(ctx, realm, bot, { to: { kind: 'private', ids: [sender.id] }, content, client: INTERNAL_CLIENT, internal: true });
}
