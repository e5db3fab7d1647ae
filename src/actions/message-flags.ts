import type { Tx } from './transaction.js';
import type { Q, UserRow } from '../store/rows.js';
import { userMessages } from '../store/repos/user-messages.js';
import { messages as messageRows } from '../store/repos/messages.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { accessMessage } from '../access/message.js';
import { unreadMessageDetails } from '../reads/unread-details.js';
import { API_FLAG_NAMES, FLAG_BITS, HISTORICAL_DEFAULT, NON_API, USER_SETTABLE, type FlagName } from '../lib/message-flags.js';
import { fitsIdColumn } from '../lib/ids.js';
import { queueRemovePushes } from '../notifications/push.js';
import { flagNotEditable, invalidFlag, invalidFlagOperation, invalidMessage } from '../errors.js';

export type FlagOp = 'add' | 'remove';

/** Zulip's checks, in its order: a known flag, one users may edit, then the operation. */
export function checkFlagChange(op: string, flag: string): { op: FlagOp; bit: number } {
  if (!API_FLAG_NAMES.has(flag) || NON_API.has(flag as FlagName)) throw invalidFlag(flag);
  if (!USER_SETTABLE.has(flag as FlagName)) throw flagNotEditable(flag);
  if (op !== 'add' && op !== 'remove') throw invalidFlagOperation(op);
  return { op, bit: FLAG_BITS[flag as FlagName] };
}

/**
 * POST /messages/flags: adds or removes one of the user's own flags on messages. Every id
 * must be a message the user received or may read (a public-stream message from before
 * they subscribed, say), else nothing changes and the answer is "Invalid message(s)".
 *
 * As Zulip: messages the user may read but never received count as flagged `read` and
 * `historical`; a change that differs from that (starring, collapsing, marking unread)
 * first gives them a historical row, others change nothing. Marking unread skips
 * messages of streams the user is not subscribed to, so that every unread stream message
 * is in a subscribed stream. The one event, to the user alone, lists the messages whose
 * flag changed; marking unread carries `message_details` (feature level 121). Answers how
 * many changed (POST /messages/flags/narrow's updated_count) and, marking unread, the
 * streams whose messages it skipped (level 355's ignored_because_not_subscribed_channels).
 */
export async function doUpdateMessageFlags(tx: Tx, user: UserRow, opName: string, flag: string, requested: number[]): Promise<{ count: number; ignoredStreamIds?: number[] }> {
  const { op, bit } = checkFlagChange(opName, flag);
  const adding = op === 'add';
  const q = tx.db;
  let ids = [...new Set(requested)];
  if (!ids.every(fitsIdColumn)) throw invalidMessage();
  const have = await userMessages.flagsByMessageIds(q, user.id, ids);
  // Zulip checks access to every message without a row, whatever the change.
  for (const id of ids) if (!have.has(id)) await accessMessage(q, user, id);
  let ignoredStreamIds: number[] | undefined;
  if (flag === 'read' && !adding) ({ ids, ignoredStreamIds } = await inSubscribedStreams(q, user, ids));
  const changes = (mask: number) => ((mask & bit) !== 0) !== adding;
  const changed = ids.filter((id) => changes(have.get(id) ?? HISTORICAL_DEFAULT));
  const historical = changed.filter((id) => !have.has(id));
  if (historical.length > 0) await userMessages.insertHistorical(q, user.id, historical);
  await userMessages.updateFlagBit(q, user.id, changed, bit, adding);
  const event = { type: 'update_message_flags', op, operation: op, flag, messages: changed, all: false } as const;
  tx.notify(flag === 'read' && !adding ? { ...event, message_details: await unreadMessageDetails(q, user, changed) } : event, [user.id], user.realm_id);
  // Read messages whose push the user's phones show: Zulip's `remove` push.
  if (flag === 'read' && adding && changed.length > 0) tx.later((ctx) => queueRemovePushes(ctx, user, changed));
  return ignoredStreamIds ? { count: changed.length, ignoredStreamIds } : { count: changed.length };
}

/** The private messages among `ids`, and the stream messages of streams the user is subscribed to; the other streams, by id. */
async function inSubscribedStreams(q: Q, user: UserRow, ids: number[]): Promise<{ ids: number[]; ignoredStreamIds: number[] }> {
  const subscribed = new Set(await subscriptions.listSubscribedStreamIds(q, user.id));
  const keep = new Set<number>();
  const ignored = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const m of await messageRows.listByIds(q, ids.slice(i, i + 500))) {
      if (m.stream_id === null || subscribed.has(m.stream_id)) keep.add(m.id);
      else ignored.add(m.stream_id);
    }
  }
  return { ids: ids.filter((id) => keep.has(id)), ignoredStreamIds: [...ignored].sort((a, b) => a - b) };
}
