import type { GroupSettingValue } from '../../lib/group-setting-value.js';
/** Events about people: users, bots, presence, statuses, mutes, groups and profile fields. */
import type { WireBot, WireClientPresence, WireProfileData, WireUser } from '../../schemas/wire.js';
import type { WireUserGroup } from '../../presenters/user-group.js';
import type { WireProfileField } from '../../presenters/profile-field.js';

export interface RealmUserAddEvent { type: 'realm_user'; op: 'add'; person: WireUser }

/** A realm_user update's `custom_profile_field`: a null value clears it; rendered_value only for text fields. */
export type ProfileFieldValueChange = { id: number; value: string | null; rendered_value?: string };

/** What changed of a user: the fields changed, a new address as `new_email` (as Zulip). */
export type RealmUserUpdatePerson = Partial<Omit<WireUser, 'user_id'>> & {
  user_id: number; new_email?: string; custom_profile_field?: ProfileFieldValueChange;
  /** With a new avatar (Zulip's do_change_avatar_fields): what register's own-user fields hold; no user object has them. */
  avatar_source?: string; avatar_url_medium?: string;
};
export interface RealmUserUpdateEvent { type: 'realm_user'; op: 'update'; person: RealmUserUpdatePerson }

/** A deactivation: the user moves to the deactivated list. */
export interface RealmUserRemoveEvent { type: 'realm_user'; op: 'remove'; person: { user_id: number; full_name: string } }

export type RealmUserEvent = RealmUserAddEvent | RealmUserUpdateEvent | RealmUserRemoveEvent;

/** A new bot, a reactivated one (replacing its inactive entry), or one that gained an owner. */
export interface RealmBotAddEvent { type: 'realm_bot'; op: 'add'; bot: WireBot }
export interface RealmBotUpdateEvent { type: 'realm_bot'; op: 'update'; bot: Partial<WireBot> & { user_id: number } }
/** Zulip 5's deactivation: the bot stays listed, inactive. */
export interface RealmBotRemoveEvent { type: 'realm_bot'; op: 'remove'; bot: { user_id: number; full_name: string } }
/** Zulip 5's owner change: gone from the old owner's list. */
export interface RealmBotDeleteEvent { type: 'realm_bot'; op: 'delete'; bot: { user_id: number } }

export type RealmBotEvent = RealmBotAddEvent | RealmBotUpdateEvent | RealmBotRemoveEvent | RealmBotDeleteEvent;

/** One user's presence, by client (Zulip 5's legacy format). */
export interface PresenceEvent {
  type: 'presence'; user_id: number; email: string; server_timestamp: number; presence: Record<string, WireClientPresence>;
}

/** What changed of a user's status, as Zulip 5's do_update_user_status sends it: the fields passed. */
export interface UserStatusEvent {
  type: 'user_status'; user_id: number; away?: boolean; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string;
}

export interface MutedUsersEvent { type: 'muted_users'; muted_users: Array<{ id: number; timestamp: number }> }

/** A user group changed (Zulip 5's user_group events), to every active user of the organization. */
export interface UserGroupAddEvent { type: 'user_group'; op: 'add'; group: WireUserGroup }
export interface UserGroupUpdateEvent { type: 'user_group'; op: 'update'; group_id: number; data: UserGroupUpdateData }
/** What a `user_group` `update` event may change: the group settings of levels 283-324, `deactivated` (290). */
export interface UserGroupUpdateData {
  name?: string; description?: string; can_mention_group_id?: GroupSettingValue; can_mention_group?: GroupSettingValue;
  can_manage_group?: GroupSettingValue; can_join_group?: GroupSettingValue; can_add_members_group?: GroupSettingValue;
  can_leave_group?: GroupSettingValue; can_remove_members_group?: GroupSettingValue; deactivated?: boolean;
}
export interface UserGroupAddMembersEvent { type: 'user_group'; op: 'add_members'; group_id: number; user_ids: number[] }
export interface UserGroupRemoveMembersEvent { type: 'user_group'; op: 'remove_members'; group_id: number; user_ids: number[] }
export interface UserGroupRemoveEvent { type: 'user_group'; op: 'remove'; group_id: number }
/** Direct subgroups added to or removed from a group (feature level 127; field named as from 131). */
export interface UserGroupSubgroupsEvent { type: 'user_group'; op: 'add_subgroups' | 'remove_subgroups'; group_id: number; direct_subgroup_ids: number[] }

export type UserGroupEvent = UserGroupAddEvent | UserGroupUpdateEvent | UserGroupAddMembersEvent | UserGroupRemoveMembersEvent | UserGroupRemoveEvent | UserGroupSubgroupsEvent;

/** The organization's whole list of custom profile fields. */
export interface CustomProfileFieldsEvent { type: 'custom_profile_fields'; fields: WireProfileField[] }

export type { WireProfileData };
