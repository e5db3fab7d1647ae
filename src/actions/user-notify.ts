import { badRequest } from '../errors.js';
import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import {
  PER_USER_EMAIL_VISIBILITY_LEVEL, avatarUrl, canSeeDeliveryEmail, displayEmailOf, canSeeDeliveryEmailOf, emailViewerOf, emailVisibilityOf, presentUser, viewerClass, visibilityAllows,
} from '../presenters/user.js';
import { realms } from '../store/repos/realms.js';
import type { RealmUserEvent } from '../events/types.js';
import type { WireUser } from '../schemas/wire.js';

/**
 * realm_user events go to every active user of the organization. A new user's
 * delivery_email goes only to those allowed to see it, as in their register state.
 */
export async function notifyRealmUser(tx: Tx, realmId: number, op: 'add', person: WireUser, deliveryEmail?: string): Promise<void>;
export async function notifyRealmUser<Op extends 'update' | 'remove'>(tx: Tx, realmId: number, op: Op, person: Extract<RealmUserEvent, { op: Op }>['person']): Promise<void>;
export async function notifyRealmUser(tx: Tx, realmId: number, op: RealmUserEvent['op'], person: RealmUserEvent['person'], deliveryEmail?: string): Promise<void> {
  // The overloads pair each op with its person; the union of pairs is not one TypeScript can check here.
  const event = (p: RealmUserEvent['person']) => ({ type: 'realm_user', op, person: p }) as RealmUserEvent;
  const recipients = await users.listActiveIdsInRealm(tx.db, realmId);
  if (deliveryEmail === undefined) {
    tx.notify(event(person), recipients, realmId);
    return;
  }
  const realm = (await realms.findById(tx.db, realmId))!;
  const viewers = await users.listByIds(tx.db, recipients);
  if (tx.featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL) {
    // The user's own visibility decides; the others get delivery_email null, as in their register state.
    const target = (await users.findById(tx.db, person.user_id))!;
    const visibility = emailVisibilityOf(target);
    const sees = (v: UserRow) => canSeeDeliveryEmailOf(emailViewerOf(v), target, visibility);
    tx.notify(event({ ...person, delivery_email: deliveryEmail }), viewers.filter(sees).map((v) => v.id), realmId);
    tx.notify(event({ ...person, delivery_email: null }), viewers.filter((v) => !sees(v)).map((v) => v.id), realmId);
    return;
  }
  const allowed = viewers.filter((v) => canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  const others = viewers.filter((v) => !canSeeDeliveryEmail(v, realm)).map((v) => v.id);
  tx.notify(event({ ...person, delivery_email: deliveryEmail }), allowed, realmId);
  tx.notify(event(person), others, realmId);
}

/**
 * Zulip's send_delivery_email_update_events (feature level 163): after `user`'s
 * email_address_visibility changed, those who can now see the address get it, those who no
 * longer can get null. Nothing for an inactive user.
 */
export async function notifyDeliveryEmailAccess(tx: Tx, user: UserRow, oldVisibility: number, newVisibility: number): Promise<void> {
  if (user.is_active !== 1 || tx.featureLevel < PER_USER_EMAIL_VISIBILITY_LEVEL) return;
  const viewers = (await users.listByIds(tx.db, await users.listActiveIdsInRealm(tx.db, user.realm_id))).filter((v) => v.id !== user.id);
  const visible: number[] = [];
  const invisible: number[] = [];
  for (const v of viewers) {
    const cls = viewerClass(v.role);
    const before = visibilityAllows(oldVisibility, cls);
    const after = visibilityAllows(newVisibility, cls);
    if (!before && after) visible.push(v.id);
    if (before && !after) invisible.push(v.id);
  }
  tx.notify({ type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: user.delivery_email } }, visible, user.realm_id);
  tx.notify({ type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: null } }, invisible, user.realm_id);
}

/**
 * Feature level 163, after `user`'s email_address_visibility changed to or from "everyone"
 * (Zulip's do_change_user_setting): the API `email` becomes the real address or the dummy
 * `user{id}@host`, told to everyone as `new_email`, with the avatar (a client computes
 * gravatars only of visible addresses).
 */
export async function doUpdateDisplayEmail(tx: Tx, user: UserRow, oldVisibility: number, newVisibility: number): Promise<void> {
  if (tx.featureLevel < PER_USER_EMAIL_VISIBILITY_LEVEL || user.is_bot === 1 || oldVisibility === newVisibility || ![oldVisibility, newVisibility].includes(1)) return;
  const realm = (await realms.findById(tx.db, user.realm_id))!;
  const email = displayEmailOf(user, realm, newVisibility);
  // The stand-in `user{id}@host` may be someone's real, visible address: the column is unique, so refuse clearly.
  const holder = await users.findByEmail(tx.db, user.realm_id, email);
  if (holder && holder.id !== user.id) throw badRequest(`Email '${email}' already in use`);
  await users.update(tx.db, user.id, { email, email_lower: email.toLowerCase() });
  await notifyRealmUser(tx, user.realm_id, 'update', { user_id: user.id, new_email: email });
  await notifyRealmUser(tx, user.realm_id, 'update', { user_id: user.id, avatar_url: avatarUrl(user, false), avatar_version: user.avatar_version });
}

export function personForEvent(u: UserRow, featureLevel: number): WireUser {
  return presentUser(u, { clientGravatar: false, showDeliveryEmail: false, profileData: {}, featureLevel });
}
