import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { dialectOf } from '../store/db.js';
import { cachedRead, type RealmUserLists } from '../cache/index.js';
import { presentUser, avatarUrl, type UserPresentOpts } from '../presenters/user.js';
import { shareSerialization, withEntry } from '../presenters/shared-json.js';
import { profileDataOfRealm, profileDataOfUser } from './profile-fields.js';

/**
 * GET /users: every user of the realm, deactivated ones and bots included; with their
 * custom profile values when `opts.profileData` is given (include_custom_profile_fields).
 */
export async function listUsers(q: Q, realmId: number, opts: UserPresentOpts): Promise<Array<Record<string, unknown>>> {
  const data = opts.profileData === undefined ? undefined : await profileDataOfRealm(q, realmId);
  return (await users.listByRealm(q, realmId)).map((u) => presentUser(u, data ? { ...opts, profileData: data.get(u.id) ?? {} } : opts));
}

/** GET /users/{id}: one user, with profile values as for GET /users. */
export async function userAnswer(q: Q, u: UserRow, opts: UserPresentOpts): Promise<Record<string, unknown>> {
  return presentUser(u, opts.profileData === undefined ? opts : { ...opts, profileData: await profileDataOfUser(q, u.id) });
}

/**
 * The deprecated max_message_id of GET /users/me and register: a per-user MAX over
 * user_message that only changes when messages arrive, move or go, so it is kept until
 * the next message event of any kind.
 */
export const maxMessageIdOf = (q: Q, userId: number): Promise<number> =>
  cachedRead(q, (c) => c.maxMessageIds, userId, () => dialectOf(q).maxMessageId(q, userId));

/**
 * GET /users/me, serialised: the answer depends only on the user's row and their newest
 * message, so it is made once per change of either.
 */
export const ownUserAnswer = (db: Q, me: UserRow, featureLevel: number): Promise<string> => cachedRead(db, (c) => c.meAnswers, me.id, async () => {
  const row = (await users.findById(db, me.id)) ?? me;
  return JSON.stringify({
    result: 'success', msg: '',
    ...presentUser(row, { clientGravatar: false, showDeliveryEmail: true, profileData: await profileDataOfUser(db, row.id), featureLevel }),
    avatar_url: avatarUrl(row, false),
    max_message_id: await maxMessageIdOf(db, me.id),
  });
});

/**
 * Every register of an organization presents the same user list (one of a few variants);
 * it was most of register's time at 1,000 users. The lists are shared: nothing may change them.
 * From feature level 163 the variant is the viewer's role class (each user's
 * email_address_visibility decides per class); the viewer's own entry, whose address they
 * always see, is put right by ownEntryFixed.
 */
export const realmUserLists = (q: Q, realm: RealmRow, clientGravatar: boolean, email: Pick<UserPresentOpts, 'showDeliveryEmail' | 'emailViewer'>,
  featureLevel: number): Promise<RealmUserLists> => {
  const cls = email.emailViewer?.cls;
  const variant = cls === undefined ? String(email.showDeliveryEmail) : `class:${cls}`;
  return cachedRead(q, (c) => c.realmUserLists, `${realm.id}:${clientGravatar}:${variant}`, async () => {
    const all = await users.listByRealm(q, realm.id);
    const data = await profileDataOfRealm(q, realm.id);
    // No viewer id: nobody's entry is the viewer's own in a list shared by a class.
    const emailViewer = cls === undefined ? undefined : { id: -1, cls };
    const present = (u: UserRow) => presentUser(u, { clientGravatar, showDeliveryEmail: email.showDeliveryEmail, emailViewer, profileData: data.get(u.id) ?? {}, featureLevel });
    return {
      active: shareSerialization(all.filter((u) => u.is_active === 1).map(present)),
      inactive: shareSerialization(all.filter((u) => u.is_active !== 1).map(present)),
    };
  });
};

/**
 * A class's list with the viewer's own entry showing their address, when the shared one
 * hides it: then a stand-in serialised from the shared list's bytes (withEntry).
 */
export function ownEntryFixed(list: Array<Record<string, unknown>>, me: UserRow): object {
  const i = list.findIndex((u) => u.user_id === me.id);
  if (i < 0 || list[i]!.delivery_email !== null) return list;
  return withEntry(list, i, { ...list[i]!, delivery_email: me.delivery_email });
}

/**
 * A realm's bots and system bots, as register reads them: one scan of its users per change
 * rather than two per register. Shared, never modified.
 */
export const realmBotsOf = (q: Q, realmId: number): Promise<{ bots: readonly UserRow[]; systemBots: readonly UserRow[] }> =>
  cachedRead(q, (c) => c.realmBots, realmId, async () => ({ bots: await users.listBots(q, realmId, null), systemBots: await users.listSystemBots(q, realmId) }));

/** register's `realm_bots`: every bot for administrators, a user's own otherwise. */
export const botsVisibleTo = async (q: Q, user: UserRow, isAdmin: boolean): Promise<UserRow[]> =>
  (await realmBotsOf(q, user.realm_id)).bots.filter((b) => isAdmin || b.bot_owner_id === user.id);
