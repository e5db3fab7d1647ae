import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { mutedUsers } from '../store/repos/muted-users.js';
import { userMessages } from '../store/repos/user-messages.js';
import { presentMutedUsers } from '../presenters/user-status.js';
import { nowSeconds } from '../lib/time.js';
import { userAlreadyMuted, userNotMuted } from '../errors.js';

/**
 * Muting users, as Zulip's do_mute_user and do_unmute_user (zerver/actions/muted_users.py).
 * Nothing is hidden by the server: clients hide a muted user's messages. The server marks
 * them read for the muter, those already received here and new ones in the send path
 * (actions/message-send.ts).
 */
async function notifyMutedUsers(tx: Tx, user: UserRow): Promise<void> {
  tx.notify({ type: 'muted_users', muted_users: presentMutedUsers(await mutedUsers.listOfUser(tx.db, user.id)) }, [user.id], user.realm_id);
}

/** `muted` is already accessed (access/user.ts) and is not `user`. */
export async function doMuteUser(tx: Tx, user: UserRow, muted: UserRow): Promise<void> {
  if (!(await mutedUsers.insert(tx.db, { user_id: user.id, muted_user_id: muted.id, realm_id: user.realm_id, date_muted: nowSeconds() }))) {
    throw userAlreadyMuted();
  }
  // Zulip's do_mark_muted_user_messages_as_read: what the muter has not read yet becomes read.
  const read = await userMessages.markSenderRead(tx.db, user.id, muted.id);
  if (read.length > 0) {
    tx.notify({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: read, all: false }, [user.id], user.realm_id);
  }
  await notifyMutedUsers(tx, user);
}

export async function doUnmuteUser(tx: Tx, user: UserRow, muted: UserRow): Promise<void> {
  if (!(await mutedUsers.delete(tx.db, user.id, muted.id))) throw userNotMuted();
  await notifyMutedUsers(tx, user);
}
