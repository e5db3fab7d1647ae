import { notifyGroupsOfUserActivation } from './user-groups.js';
import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { sessions } from '../store/repos/sessions.js';
import { badRequest } from '../errors.js';
import { checkNotLastOwner } from './user-update.js';
import { notifyRealmUser, personForEvent } from './user-notify.js';
import { notifyPeersOfDeactivatedUser } from './subscription-remove.js';
import { botAudience, fullBot } from './bot-notify.js';
import { realmUri } from '../lib/realm-host.js';
import { doClearPushDeviceTokens } from './push-tokens.js';

/** The feature level from which (de)activation is a realm_user / realm_bot `update` with `is_active`. */
export const ACTIVE_AS_UPDATE_LEVEL = 222;

export async function doDeactivateUser(tx: Tx, target: UserRow): Promise<void> {
  if (target.is_active !== 1) throw badRequest('User is deactivated');
  await checkNotLastOwner(tx, target, 'Cannot deactivate the only organization owner');
  // Notify while the user still counts as active so their own clients learn of it too.
  // From feature level 222 (Zulip's send_events_for_user_deactivation) an `update` with
  // is_active false, to clients of every capability as Zulip sends it; below it, the remove
  // the level-122 contract knows. The level decides, since no capability does.
  const asUpdate = tx.featureLevel >= ACTIVE_AS_UPDATE_LEVEL;
  if (asUpdate) await notifyRealmUser(tx, target.realm_id, 'update', { user_id: target.id, is_active: false });
  else await notifyRealmUser(tx, target.realm_id, 'remove', { user_id: target.id, full_name: target.full_name });
  await users.update(tx.db, target.id, { is_active: 0 });
  // As Zulip's do_deactivate_user: the user's phones are unregistered from push notifications.
  if (target.is_bot === 0) await doClearPushDeviceTokens(tx, target);
  await notifyGroupsOfUserActivation(tx, target, false);
  // Zulip 5's realm_bot remove (an update from 222): the bot stays in realm_bots, marked inactive.
  if (target.is_bot === 1 && target.is_system_bot !== 1) {
    const bot = { user_id: target.id, ...(asUpdate ? { is_active: false } : { full_name: target.full_name }) };
    tx.notify(asUpdate ? { type: 'realm_bot', op: 'update', bot } : { type: 'realm_bot', op: 'remove', bot: { user_id: target.id, full_name: target.full_name } },
      await botAudience(tx, target), target.realm_id);
  }
  // Bots owned by a deactivated human stop too, as in Zulip.
  if (target.is_bot === 0) {
    for (const bot of await users.listActiveBotsOfOwner(tx.db, target.id)) await doDeactivateUser(tx, bot);
  }
  await notifyPeersOfDeactivatedUser(tx, { ...target, is_active: 0 });
}

export async function doReactivateUser(tx: Tx, _realm: RealmRow, target: UserRow): Promise<void> {
  if (target.is_active === 1) throw badRequest('User is already active');
  // A deactivated user's web sessions end when next used (answering "Account is deactivated",
  // web-contract.md); any left unused must not come back to life with the account.
  await sessions.deleteByUserId(tx.db, target.id);
  await users.update(tx.db, target.id, { is_active: 1 });
  const active = { ...target, is_active: 1 };
  // From feature level 222, as Zulip's do_reactivate_user: updates with is_active true; below
  // it, the whole user (and bot) again as an add.
  if (tx.featureLevel >= ACTIVE_AS_UPDATE_LEVEL) {
    await notifyRealmUser(tx, target.realm_id, 'update', { user_id: target.id, is_active: true });
    await notifyGroupsOfUserActivation(tx, target, true);
    if (target.is_bot === 1 && target.is_system_bot !== 1) {
      tx.notify({ type: 'realm_bot', op: 'update', bot: { user_id: target.id, is_active: true } }, await botAudience(tx, active), target.realm_id);
    }
    return;
  }
  await notifyRealmUser(tx, target.realm_id, 'add', personForEvent(active, tx.featureLevel), target.delivery_email);
  // As Zulip's do_reactivate_user (notify_created_bot): the whole bot again, as an add.
  if (target.is_bot === 1 && target.is_system_bot !== 1) {
    tx.notify({ type: 'realm_bot', op: 'add', bot: await fullBot(tx, active) }, await botAudience(tx, active), target.realm_id);
  }
}

/** DELETE /bots/{bot_id}: as Zulip's do_deactivate_user, a bot already deactivated is left as it is. */
export async function doDeactivateBot(tx: Tx, bot: UserRow): Promise<void> {
  if (bot.is_active === 1) await doDeactivateUser(tx, bot);
}

/**
 * DELETE /users/{id} `deactivation_notification_comment` (feature level 135): once the
 * deactivation has committed, the user is told by mail, with the administrators' comment
 * when it is not empty (an empty one still sends the notice), as Zulip's
 * zerver/emails/deactivate.
 */
export function doMailDeactivationNotice(tx: Tx, realm: RealmRow, target: UserRow, comment: string): void {
  tx.later(async (ctx) => {
    const url = realmUri(ctx.config, realm);
    await ctx.mail.send({
      to: target.delivery_email,
      subject: `Notification of account deactivation on ${realm.name}`,
      text: `Your account on ${url} has been deactivated, and you will no longer be able to log in.\n`
        + (comment === '' ? '' : `\nThe administrators provided the following comment:\n\n${comment}\n`),
    });
  });
}
