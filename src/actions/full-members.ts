import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import { realms } from '../store/repos/realms.js';
import { userGroups } from '../store/repos/user-groups.js';
import { realmSettings } from '../lib/realm-settings.js';
import { Role } from '../lib/roles.js';
import { SystemGroup } from '../lib/system-groups.js';
import { nowSeconds } from '../lib/time.js';
import { serialRounds } from '../lib/serial-rounds.js';
import { notifySystemGroup } from './system-groups.js';
import { withChannelAccessEvents } from './channel-access-events.js';

/**
 * Members become full members when the organization's waiting period has passed since they
 * joined. Nothing happens at that moment, so Zulip promotes them by a periodic job
 * (promote_new_full_members); without it role:fullmembers, as register and user_group events
 * show it, would lag behind the permission checks, which compute it from date_joined.
 */
const EVERY_MS = 60 * 60 * 1000;

/**
 * Zulip's update_users_in_full_members_system_group: role:fullmembers made to match the
 * waiting period as of `now`, those no longer qualifying removed (a raised period) and those
 * now qualifying added, one event each (Zulip's bulk changes). Answers who was added.
 */
export async function doUpdateFullMembers(tx: Tx, realmId: number, now: number): Promise<number[]> {
  const realm = await realms.findById(tx.db, realmId);
  if (!realm || realm.deactivated === 1) return [];
  const group = (await userGroups.systemGroupsByName(tx.db, realmId)).get(SystemGroup.FULL_MEMBERS);
  if (!group) return [];
  const joinedBy = now - realmSettings(realm.settings).waiting_period_threshold * 86400;
  const early = await userGroups.listJoinedAfterInGroup(tx.db, group.id, Role.MEMBER, joinedBy);
  const due = await userGroups.listDueForGroup(tx.db, realmId, group.id, Role.MEMBER, joinedBy);
  if (early.length === 0 && due.length === 0) return due;
  // Level 349: role:fullmembers may grant metadata access to private channels.
  return withChannelAccessEvents(tx, realmId, async () => {
    if (early.length > 0) {
      await userGroups.deleteMembers(tx.db, group.id, early);
      await notifySystemGroup(tx, realmId, { type: 'user_group', op: 'remove_members', group_id: group.id, user_ids: early });
    }
    if (due.length > 0) {
      await userGroups.insertMembers(tx.db, group.id, due);
      await notifySystemGroup(tx, realmId, { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: due });
    }
    return due;
  });
}

export interface FullMemberPromotion {
  /** Promotes every organization's due members as of `now` (tests pass a later time rather than wait); answers how many. */
  promoteDue(now?: number): Promise<number>;
}

/**
 * Runs at start and hourly on every node. Each organization's promotion is one transaction;
 * two nodes racing on the same one make the second's insert fail on the membership key and
 * roll back, and its next round finds nothing due.
 */
export function startFullMemberPromotion(ctx: AppContext): FullMemberPromotion {
  const round = async (now: number): Promise<number> => {
    let promoted = 0;
    for (const realm of await realms.list(ctx.store.db)) {
      if (realm.deactivated === 1 || realmSettings(realm.settings).waiting_period_threshold === 0) continue;
      try {
        promoted += (await transact(ctx, (tx) => doUpdateFullMembers(tx, realm.id, now))).length;
      } catch (err) {
        ctx.log.warn({ err, realm: realm.id }, 'full member promotion failed; the next round retries');
      }
    }
    return promoted;
  };
  const rounds = serialRounds(round);
  const promoteDue = (now = nowSeconds()): Promise<number> => rounds.run(now);
  const tick = () => {
    if (!rounds.busy()) promoteDue().catch((err: unknown) => ctx.log.error({ err }, 'full member promotion round failed'));
  };
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  const first = setTimeout(tick, 0);
  first.unref();
  ctx.shutdownHooks.push(async () => {
    clearInterval(timer);
    clearTimeout(first);
    await rounds.settled();
  });
  return { promoteDue };
}
