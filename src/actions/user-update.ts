import { doClearPushDeviceTokens } from './push-tokens.js';
import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { presentStream } from '../presenters/stream.js';
import { streamsVisibleTo } from '../reads/streams.js';
import { users } from '../store/repos/users.js';
import { badRequest, mustBeOwner } from '../errors.js';
import { ROLE_VALUES, Role } from '../lib/roles.js';
import { generateApiKey } from '../lib/secrets.js';
import { checkFullName } from './user-create.js';
import { checkNameUnique } from './unique-names.js';
import { notifyRealmUser } from './user-notify.js';
import { notifyBotUpdate } from './bot-notify.js';
import { doSyncSystemGroups } from './system-groups.js';

export async function checkNotLastOwner(tx: Tx, target: UserRow, msg: string): Promise<void> {
  if (target.role === Role.OWNER && (await users.countActiveHumanOwners(tx.db, target.realm_id)) <= 1) throw badRequest(msg);
}

export async function doChangeFullName(tx: Tx, target: UserRow, fullName: string): Promise<void> {
  const name = checkFullName(fullName);
  await checkNameUnique(tx, target.realm_id, name, target.id);
  if (name === target.full_name) return;
  await users.update(tx.db, target.id, { full_name: name });
  await notifyRealmUser(tx, target.realm_id, 'update', { user_id: target.id, full_name: name });
  // A bot's name is also in its owner's and the administrators' realm_bots.
  if (target.is_bot === 1 && target.is_system_bot !== 1) await notifyBotUpdate(tx, target, { full_name: name });
}

export async function doChangeRole(tx: Tx, acting: UserRow, target: UserRow, role: number): Promise<void> {
  if (!ROLE_VALUES.includes(role)) throw badRequest('Invalid role');
  // Only owners may grant or take away ownership.
  if ((role === Role.OWNER || target.role === Role.OWNER) && acting.role !== Role.OWNER) {
    throw mustBeOwner();
  }
  if (role === target.role) return;
  if (target.role === Role.OWNER) {
    await checkNotLastOwner(tx, target, 'The owner permission cannot be removed from the only organization owner.');
  }
  const before = await streamsVisibleTo(tx.db, target, tx.featureLevel);
  await users.update(tx.db, target.id, { role });
  await notifyRealmUser(tx, target.realm_id, 'update', { user_id: target.id, role });
  await doSyncSystemGroups(tx, { ...target, role });
  await notifyStreamsForRole(tx, { ...target, role }, before);
}

/**
 * Zulip's send_stream_events_for_role_update (feature level 205): the user hears
 * `stream create` for the streams the new role lets them see, a `peer_add` with each
 * one's subscribers, and `stream delete` for those it hides.
 */
export async function notifyStreamsForRole(tx: Tx, user: UserRow, before: StreamRow[]): Promise<void> {
  const after = await streamsVisibleTo(tx.db, user, tx.featureLevel);
  const had = new Set(before.map((s) => s.id));
  const has = new Set(after.map((s) => s.id));
  const gained = after.filter((s) => !had.has(s.id));
  const lost = before.filter((s) => !has.has(s.id));
  if (gained.length > 0) {
    tx.notify({ type: 'stream', op: 'create', streams: gained.map((s) => presentStream(s, tx.featureLevel)) }, [user.id], user.realm_id);
    const members = await subscriptions.mapSubscriberIds(tx.db, gained.map((s) => s.id));
    for (const s of gained) {
      const ids = [...(members.get(s.id) ?? [])].sort((a, b) => a - b);
      if (ids.length > 0) tx.notify({ type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: ids }, [user.id], user.realm_id);
    }
  }
  if (lost.length > 0) {
    tx.notify({ type: 'stream', op: 'delete', streams: lost.map((s) => presentStream(s, tx.featureLevel)), stream_ids: lost.map((s) => s.id) }, [user.id], user.realm_id);
  }
}

/**
 * An operator's `parley user password` (Zulip's manage.py change_password): how people an
 * import brought in, who have no password, get one while Parley has no reset mail. The hash is
 * made by the caller, outside the transaction (it takes a deliberate while).
 */
export async function doSetPasswordHash(tx: Tx, user: UserRow, passwordHash: string): Promise<void> {
  await users.update(tx.db, user.id, { password_hash: passwordHash });
}

export async function doRegenerateApiKey(tx: Tx, user: UserRow): Promise<string> {
  const key = generateApiKey();
  await users.update(tx.db, user.id, { api_key: key });
  // As Zulip: the devices registered under the old key stop getting notifications.
  await doClearPushDeviceTokens(tx, user);
  // The key is part of the Bot object: the owner and administrators see it in realm_bots.
  if (user.is_bot === 1 && user.is_system_bot !== 1) await notifyBotUpdate(tx, user, { api_key: key });
  return key;
}


/**
 * Zulip's do_change_can_change_user_emails (the server's command line only): no event, as
 * Zulip sends none; the permission is never shown through the API.
 */
export async function doSetCanChangeUserEmails(tx: Tx, user: UserRow, value: boolean): Promise<void> {
  await users.update(tx.db, user.id, { can_change_user_emails: value ? 1 : 0 });
}
