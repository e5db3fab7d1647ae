import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { hasRealmGroupPermission } from './realm-group-setting.js';
import { Role } from '../lib/roles.js';
import { realmSettings, type RealmSettings } from '../lib/realm-settings.js';

/** Zulip's organization policy values. */
export const Policy = { MEMBERS: 1, ADMINS: 2, FULL_MEMBERS: 3, MODERATORS: 4, EVERYONE: 5, NOBODY: 6, OWNERS: 7 } as const;

type PolicyName = 'create_public_stream_policy' | 'create_private_stream_policy' | 'create_web_public_stream_policy' | 'invite_to_stream_policy'
  | 'edit_topic_policy' | 'move_messages_between_streams_policy' | 'delete_own_message_policy' | 'user_group_edit_policy'
  | 'add_custom_emoji_policy' | 'invite_to_realm_policy';

/** Zulip's UserProfile.has_permission, in the same order of checks. */
export function hasPolicyPermission(user: Pick<UserRow, 'role' | 'date_joined'>, realm: RealmRow, name: PolicyName,
  now = Math.floor(Date.now() / 1000)): boolean {
  const settings: Readonly<RealmSettings> = realmSettings(realm.settings);
  const policy = settings[name];
  if (policy === Policy.NOBODY) return false;
  if (policy === Policy.EVERYONE) return true;
  if (user.role === Role.OWNER) return true;
  if (policy === Policy.OWNERS) return false;
  if (user.role <= Role.ADMINISTRATOR) return true;
  if (policy === Policy.ADMINS) return false;
  if (user.role <= Role.MODERATOR) return true;
  if (policy === Policy.MODERATORS) return false;
  if (user.role === Role.GUEST) return false;
  if (policy === Policy.MEMBERS) return true;
  return (now - user.date_joined) / 86400 >= settings.waiting_period_threshold;
}

/** Web-public streams need the organization to allow spectators (the server always allows them). */
export function webPublicStreamsEnabled(realm: RealmRow): boolean {
  return realmSettings(realm.settings).enable_spectator_access === true;
}

/** Zulip's Realm.WILDCARD_MENTION_THRESHOLD: streams this small allow wildcards to anyone. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/**
 * Zulip's wildcard_mention_allowed; `subscriberCount` is the stream's, which the send path
 * already holds. Level 352: can_mention_many_users_group decides (wildcard_mention_policy is
 * kept equal to it); its default, administrators, is answered from the role without a query.
 */
export async function wildcardMentionAllowed(q: Q, sender: UserRow, realm: RealmRow, subscriberCount: number): Promise<boolean> {
  if (subscriberCount <= WILDCARD_MENTION_THRESHOLD) return true;
  return hasRealmGroupPermission(q, realm, sender, 'can_mention_many_users_group');
}

/** Zulip's check_private_message_policy: when disabled, private messages only go to or come from a bot. */
export function privateMessagesAllowed(realm: RealmRow, sender: Pick<UserRow, 'is_bot'>, recipients: ReadonlyArray<Pick<UserRow, 'is_bot'>>): boolean {
  if (realmSettings(realm.settings).private_message_policy !== 2) return true;
  return sender.is_bot === 1 || (recipients.length === 1 && recipients[0]!.is_bot === 1);
}
