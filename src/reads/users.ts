import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { dialectOf } from '../store/db.js';
import { cachedRead, type RealmUserLists } from '../cache/index.js';
import { presentUser, avatarUrl, type UserPresentOpts } from '../presenters/user.js';
import { shareSerialization } from '../presenters/shared-json.js';
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
export const ownUserAnswer = (db: Q, me: UserRow): Promise<string> => cachedRead(db, (c) => c.meAnswers, me.id, async () => {
  const row = (await users.findById(db, me.id)) ?? me;
  return JSON.stringify({
    result: 'success', msg: '',
    ...presentUser(row, { clientGravatar: false, showDeliveryEmail: true, profileData: await profileDataOfUser(db, row.id) }),
    avatar_url: avatarUrl(row, false),
    max_message_id: await maxMessageIdOf(db, me.id),
  });
});

/**
 * Every register of an organization presents the same user list (one of four variants);
 * it was most of register's time at 1,000 users. The lists are shared: nothing may change them.
 */
export const realmUserLists = (q: Q, realm: RealmRow, clientGravatar: boolean, showDeliveryEmail: boolean): Promise<RealmUserLists> =>
  cachedRead(q, (c) => c.realmUserLists, `${realm.id}:${clientGravatar}:${showDeliveryEmail}`, async () => {
    const all = await users.listByRealm(q, realm.id);
    const data = await profileDataOfRealm(q, realm.id);
    const present = (u: UserRow) => presentUser(u, { clientGravatar, showDeliveryEmail, profileData: data.get(u.id) ?? {} });
    return {
      active: shareSerialization(all.filter((u) => u.is_active === 1).map(present)),
      inactive: shareSerialization(all.filter((u) => u.is_active !== 1).map(present)),
    };
  });

/** register's `realm_bots`: every bot for administrators, a user's own otherwise. */
export const botsVisibleTo = (q: Q, user: UserRow, isAdmin: boolean): Promise<UserRow[]> =>
  users.listBots(q, user.realm_id, isAdmin ? null : user.id);
