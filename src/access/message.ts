import type { MessageRow, Q, StreamRow, UserRow } from '../store/rows.js';
import { messages } from '../store/repos/messages.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { canReadHistory } from './stream.js';
import { contentGroupsFor, hasContentAccessViaGroups } from './channel-access.js';
import { invalidMessage } from '../errors.js';
import { Role } from '../lib/roles.js';
import { isPossibleId } from '../lib/ids.js';

/** GET /messages/{id} and read receipts of archived streams' messages (Zulip 10). */
export const ARCHIVED_MESSAGES_READABLE_LEVEL = 360;

/**
 * A message the user received, or a stream message whose history they may read
 * (then without a user_message row: `flags` null means historical). Anything else is
 * "Invalid message(s)", the same answer as for a message that does not exist.
 */
export async function accessMessage(q: Q, user: UserRow, id: number, featureLevel = 0): Promise<{ message: MessageRow; flags: number | null }> {
  if (!isPossibleId(id)) throw invalidMessage();
  const message = await messages.findById(q, id);
  if (!message || message.realm_id !== user.realm_id) throw invalidMessage();
  const um = await messages.flagsOf(q, user.id, id);
  if (um) return { message, flags: um.flags };
  if (message.stream_id !== null) {
    // From level 360 an archived stream's messages are read under the same rules.
    const stream = featureLevel >= ARCHIVED_MESSAGES_READABLE_LEVEL ? await streams.findInRealmAny(q, user.realm_id, message.stream_id)
      : await streams.findInRealm(q, user.realm_id, message.stream_id);
    const sub = stream ? await subscriptions.findActive(q, user.id, stream.id) : undefined;
    // Level 354: the members of a private stream's content-granting groups read its shared history.
    const groups = stream && stream.invite_only === 1 && !sub ? await contentGroupsFor(q, user, featureLevel) : undefined;
    if (stream && canReadHistory(user, stream, sub ?? null, groups)) return { message, flags: null };
  }
  throw invalidMessage();
}

/**
 * accessMessage for a change to the message (reacting, deleting): Zulip's access with
 * is_modifying_message, which refuses messages of archived streams, and its
 * has_message_access, by which a recipient row alone does not open a stream the user cannot
 * otherwise read (a private stream they have left). Answers the stream too.
 */
export async function accessMessageToModify(q: Q, user: UserRow, id: number, featureLevel = 0): Promise<{ message: MessageRow; flags: number | null; stream: StreamRow | undefined }> {
  const access = await accessMessage(q, user, id, featureLevel);
  if (access.message.stream_id === null) return { ...access, stream: undefined };
  const stream = await streams.findInRealm(q, user.realm_id, access.message.stream_id);
  if (!stream) throw invalidMessage();
  const openToUser = stream.invite_only === 0 && user.role !== Role.GUEST;
  if (!openToUser && !(await subscriptions.findActive(q, user.id, stream.id))) {
    // Level 354: content access through the stream's groups counts (reactions).
    const groups = await contentGroupsFor(q, user, featureLevel);
    if (!groups || !hasContentAccessViaGroups(stream, groups)) throw invalidMessage();
  }
  return { ...access, stream };
}
