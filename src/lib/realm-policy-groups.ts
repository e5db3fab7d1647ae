import type { RealmPermissionSettingName } from './permission-settings.js';

/**
 * Levels 299-363 (realmB). The settings themselves are REALM_PERMISSION_SETTINGS, and the
 * policies they replaced REPLACED_POLICY (src/lib/realm-group-settings.ts).
 */

/** The realm group settings only an owner may change (Zulip 10's update_realm). */
export const OWNER_ONLY_GROUP_SETTINGS: ReadonlySet<RealmPermissionSettingName> = new Set([
  'create_multiuse_invite_group', 'can_create_groups', 'can_invite_users_group', 'can_manage_all_groups', 'can_manage_billing_group',
]);

/**
 * Level 358: who sees messages' edit history (Zulip's MessageEditHistoryVisibilityPolicyEnum,
 * by name in the API). allow_edit_history, which it replaced, is kept equal to it (false: "none").
 */
export const EDIT_HISTORY_POLICIES = ['all', 'moves', 'none'] as const;
export type EditHistoryPolicy = (typeof EDIT_HISTORY_POLICIES)[number];
export const EDIT_HISTORY_POLICY_LEVEL = 358;
