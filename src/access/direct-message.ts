import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { realmSettings } from '../lib/realm-settings.js';
import { SystemGroup } from '../lib/system-groups.js';
import { storedRealmGroupSetting, systemGroupOfSetting } from './realm-group-setting.js';
import { userHasGroupSettingValue } from './group-setting.js';
import { inSystemGroup } from '../lib/realm-group-settings.js';
import { REALM_PERMISSION_SETTINGS } from '../lib/permission-settings.js';
import type { RealmPermissionSettingName } from '../lib/permission-settings.js';
import { privateMessagesAllowed } from './realm-policy.js';
import { messages } from '../store/repos/messages.js';
import { recipients } from '../store/repos/recipients.js';
import { huddles } from '../store/repos/huddles.js';
import { badRequest, privateMessagesDisabled } from '../errors.js';

/** Feature level 270: direct_message_permission_group and direct_message_initiator_group replace private_message_policy. */
export const DIRECT_MESSAGE_GROUPS_LEVEL = 270;

/**
 * Whether the sender may send this direct message. Below level 270, Zulip 5's
 * check_private_message_policy; from it, Zulip 9's check_can_send_direct_message: bots and
 * messages to bots or oneself pass; then someone in the conversation must be in
 * direct_message_permission_group; then, unless the sender is in
 * direct_message_initiator_group, the conversation must already have messages.
 */
export async function checkCanSendDirectMessage(q: Q, featureLevel: number, realm: RealmRow, sender: UserRow, others: readonly UserRow[]): Promise<void> {
  if (featureLevel < DIRECT_MESSAGE_GROUPS_LEVEL) {
    if (!privateMessagesAllowed(realm, sender, others)) throw privateMessagesDisabled();
    return;
  }
  if (sender.is_bot === 1) return;
  if (others.every((u) => u.is_bot === 1 || u.id === sender.id)) return;
  const waiting = realmSettings(realm.settings).waiting_period_threshold;
  // A setting still naming its system group is answered from roles, without a query (the send path).
  const inSetting = async (u: UserRow, name: RealmPermissionSettingName): Promise<boolean> => {
    const stored = storedRealmGroupSetting(realm, name);
    return 'group' in stored ? inSystemGroup(u, stored.group, waiting) : userHasGroupSettingValue(q, u, stored.value, REALM_PERMISSION_SETTINGS[name], waiting);
  };
  const permission = await systemGroupOfSetting(q, realm, 'direct_message_permission_group');
  if (permission === SystemGroup.NOBODY) throw badRequest('Direct messages are disabled in this organization.');
  if (permission !== SystemGroup.EVERYONE) {
    let any = false;
    for (const u of [sender, ...others]) if ((any = await inSetting(u, 'direct_message_permission_group'))) break;
    if (!any) throw badRequest('This conversation does not include any users who can authorize it.');
  }
  const initiator = storedRealmGroupSetting(realm, 'direct_message_initiator_group');
  if (('group' in initiator && initiator.group === SystemGroup.EVERYONE) || await inSetting(sender, 'direct_message_initiator_group')) return;
  const memberIds = [...new Set([sender.id, ...others.map((u) => u.id)])].sort((a, b) => a - b);
  let exists: boolean;
  if (memberIds.length <= 2) {
    // A one-to-one conversation: a message either way (Zulip's Recipient.PERSONAL case).
    const other = memberIds.find((id) => id !== sender.id)!;
    const personal = await recipients.mapPersonalOf(q, [sender.id, other]);
    const pairs = [
      { senderId: sender.id, recipientId: personal.get(other) }, { senderId: other, recipientId: personal.get(sender.id) },
    ].filter((p): p is { senderId: number; recipientId: number } => p.recipientId !== undefined);
    exists = await messages.anySentTo(q, pairs);
  } else {
    const huddle = await huddles.findByHash(q, memberIds.join(','));
    exists = huddle?.recipient_id != null && await messages.anyTo(q, huddle.recipient_id);
  }
  if (!exists) throw badRequest('You do not have permission to initiate direct message conversations.');
}
