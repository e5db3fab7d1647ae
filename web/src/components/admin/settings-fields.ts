/**
 * The settings of PATCH /realm as Zulip's web app groups and words them
 * (web/templates/settings/organization_{profile,settings,permissions}_admin.hbs and
 * web/src/settings_config.ts). A field is shown when register has its `realm_<name>`: the
 * reported feature level decides which exist.
 */
import { t } from '../../i18n';

export type Options = Array<[string | number, string]>;
export type Field =
  | { name: string; label: string; kind: 'bool' | 'text' | 'textarea' | 'stream' }
  | { name: string; label: string; kind: 'select'; options: () => Options }
  /** Seconds or days; "unlimited" is the API's word for none. */
  | { name: string; label: string; kind: 'limit'; unit: 'minutes' | 'days'; options: number[] }
  | { name: string; label: string; kind: 'number'; suffix: string }
  /** A group-valued permission (feature levels 209 on): a system group's id, as Zulip's web app offers them. */
  | { name: string; label: string; kind: 'group' };
export type Section = { id: string; title: string; fields: Field[] };
export type Group = { id: string; title: string; sections: Section[] };

// Zulip's settings_config policy values, in its dropdowns' order.
const ADMINS = (): [number, string] => [2, t('Admins')];
const MODS = (): [number, string] => [4, t('Admins and moderators')];
const FULL = (): [number, string] => [3, t('Admins, moderators and full members')];
const MEMBERS = (): [number, string] => [1, t('Admins, moderators and members')];
const NOBODY = (): [number, string] => [6, t('Nobody')];
const common = (): Options => [ADMINS(), MODS(), FULL(), MEMBERS()];
const commonMessage = (): Options => [ADMINS(), MODS(), FULL(), MEMBERS(), [5, t('Admins, moderators, members and guests')]];

const bool = (name: string, label: string): Field => ({ name, label, kind: 'bool' });
const group = (name: string, label: string): Field => ({ name, label, kind: 'group' });
const select = (name: string, label: string, options: () => Options): Field => ({ name, label, kind: 'select', options });

export const GROUPS = (): Group[] => [
  {
    id: 'profile', title: t('Organization profile'), sections: [
      { id: 'profile', title: t('Organization profile'), fields: [
        { name: 'name', label: t('Organization name'), kind: 'text' },
        select('org_type', t('Organization type'), () => [
          [0, t('Unspecified')], [10, t('Business')], [20, t('Open-source project')], [30, t('Education (non-profit)')], [35, t('Education (for-profit)')],
          [40, t('Research')], [50, t('Event or conference')], [60, t('Non-profit (registered)')], [70, t('Government')], [80, t('Political group')],
          [90, t('Community')], [100, t('Personal')], [1000, t('Other')],
        ]),
        { name: 'description', label: t('Organization description'), kind: 'textarea' },
        bool('want_advertise_in_communities_directory', t('Advertise organization in the Zulip communities directory')),
      ] },
    ],
  },
  {
    id: 'settings', title: t('Organization settings'), sections: [
      { id: 'notifications', title: t('Notifications'), fields: [
        { name: 'notifications_stream_id', label: t('New stream announcements'), kind: 'stream' },
        { name: 'signup_notifications_stream_id', label: t('New user announcements'), kind: 'stream' },
        { name: 'zulip_update_announcements_stream_id', label: t('Zulip update announcements'), kind: 'stream' },
        bool('send_welcome_emails', t('Send emails introducing Zulip to new users')),
        bool('message_content_allowed_in_email_notifications', t('Allow message content in message notification emails')),
        bool('digest_emails_enabled', t('Send weekly digest emails to inactive users')),
        select('digest_weekday', t('Day of the week to send digests'), () => [
          [0, t('Monday')], [1, t('Tuesday')], [2, t('Wednesday')], [3, t('Thursday')], [4, t('Friday')], [5, t('Saturday')], [6, t('Sunday')],
        ]),
      ] },
      { id: 'feed', title: t('Message feed settings'), fields: [
        bool('inline_image_preview', t('Show previews of uploaded and linked images and videos')),
        bool('inline_url_embed_preview', t('Show previews of linked websites')),
        bool('mandatory_topics', t('Require topics in stream messages')),
      ] },
      { id: 'compose', title: t('Compose settings'), fields: [
        select('video_chat_provider', t('Call provider'), () => [[0, t('None')], [1, 'Jitsi Meet']]),
        { name: 'jitsi_server_url', label: t('Jitsi server URL'), kind: 'text' },
        select('giphy_rating', t('GIPHY integration'), () => [[0, t('Allow GIFs rated Y (Very young audience)')], [1, t('Allow GIFs rated G (General audience)')], [2, t('Allow GIFs rated PG (Parental guidance)')], [3, t('Allow GIFs rated PG-13 (Parental guidance - under 13)')], [4, t('Allow GIFs rated R (Restricted)')]]),
      ] },
      { id: 'other', title: t('Other settings'), fields: [
        { name: 'default_language', label: t('Language for automated messages and invitation emails'), kind: 'text' },
        { name: 'default_code_block_language', label: t('Default language for code blocks'), kind: 'text' },
        { name: 'message_retention_days', label: t('Message retention period'), kind: 'limit', unit: 'days', options: [30, 90, 365, 730] },
      ] },
    ],
  },
  {
    id: 'permissions', title: t('Organization permissions'), sections: [
      { id: 'joining', title: t('Joining the organization'), fields: [
        bool('invite_required', t('Invitations are required for joining this organization')),
        select('invite_to_realm_policy', t('Who can invite users to this organization'), () => [ADMINS(), MODS(), FULL(), MEMBERS(), NOBODY()]),
        bool('emails_restricted_to_domains', t('Restrict email domains of new users to the organization\'s allowed domains')),
        bool('disallow_disposable_email_addresses', t('Don\'t allow disposable email addresses')),
        group('can_invite_users_group', t('Who can invite users to this organization')),
        group('create_multiuse_invite_group', t('Who can create reusable invitation links')),
        { name: 'waiting_period_threshold', label: t('Waiting period before new members turn into full members'), kind: 'number', suffix: t('days') },
      ] },
      { id: 'identity', title: t('User identity'), fields: [
        bool('require_unique_names', t('Require unique names')),
        bool('name_changes_disabled', t('Prevent users from changing their name')),
        bool('email_changes_disabled', t('Prevent users from changing their email address')),
        bool('avatar_changes_disabled', t('Prevent users from changing their avatar')),
        bool('enable_guest_user_indicator', t('Display “(guest)” after names of guest users')),
        bool('enable_guest_user_dm_warning', t('Warn when composing a DM to a guest')),
        group('can_access_all_users_group', t('Who can view all other users in the organization')),
        select('email_address_visibility', t('Who can access user email addresses'), () => [
          [1, t('Admins, moderators, members and guests')], [5, t('Admins and moderators')], [3, t('Admins only')], [4, t('Nobody')],
        ]),
      ] },
      { id: 'streams', title: t('Stream permissions'), fields: [
        select('create_public_stream_policy', t('Who can create public streams'), common),
        group('can_create_public_channel_group', t('Who can create public streams')),
        group('can_create_private_channel_group', t('Who can create private streams')),
        group('can_create_web_public_channel_group', t('Who can create web-public streams')),
        group('can_add_subscribers_group', t('Who can add users to streams')),
        group('can_mention_many_users_group', t('Who can notify a large number of users with a wildcard mention')),
        select('create_private_stream_policy', t('Who can create private streams'), common),
        bool('enable_spectator_access', t('Allow creating web-public streams (visible to anyone on the Internet)')),
        select('create_web_public_stream_policy', t('Who can create web-public streams'), () => [[7, t('Owners')], ADMINS(), MODS(), NOBODY()]),
        select('invite_to_stream_policy', t('Who can add users to streams'), common),
        select('wildcard_mention_policy', t('Who can use @all/@everyone mentions in large streams'), () => [
          [5, t('Admins')], [7, t('Admins and moderators')], [3, t('Admins, moderators and full members')], [2, t('Admins, moderators and members')],
          [1, t('Admins, moderators, members and guests')], [6, t('Nobody')],
        ]),
      ] },
      { id: 'messages', title: t('Messages and editing'), fields: [
        select('private_message_policy', t('Direct messages'), () => [[1, t('Allowed')], [2, t('Disabled')]]),
        group('direct_message_permission_group', t('Who can authorize a direct message conversation')),
        group('direct_message_initiator_group', t('Who can start a direct message conversation')),
        bool('allow_message_editing', t('Allow message editing')),
        { name: 'message_content_edit_limit_seconds', label: t('Time limit for editing messages'), kind: 'limit', unit: 'minutes', options: [2, 10, 60, 1440, 10080] },
        select('edit_topic_policy', t('Who can move messages to another topic'), () => [...commonMessage().reverse(), NOBODY()]),
        { name: 'move_messages_within_stream_limit_seconds', label: t('Time limit for editing topics'), kind: 'limit', unit: 'minutes', options: [60, 1440, 4320, 10080] },
        group('can_move_messages_between_topics_group', t('Who can move messages to another topic')),
        group('can_resolve_topics_group', t('Who can resolve topics')),
        group('can_move_messages_between_channels_group', t('Who can move messages to another stream')),
        select('move_messages_between_streams_policy', t('Who can move messages to another stream'), () => [...common(), NOBODY()]),
        { name: 'move_messages_between_streams_limit_seconds', label: t('Time limit for moving messages between streams'), kind: 'limit', unit: 'minutes', options: [60, 1440, 4320, 10080] },
        bool('allow_edit_history', t('Enable message edit history')),
        select('message_edit_history_visibility_policy', t('Allow viewing the history of a message'), () => [['all', t('Show edits and moves')], ['moves', t('Move history only')], ['none', t('Don\'t allow')]]),
        select('delete_own_message_policy', t('Who can delete their own messages'), commonMessage),
        group('can_delete_own_message_group', t('Who can delete their own messages')),
        group('can_delete_any_message_group', t('Who can delete any message')),
        { name: 'message_content_delete_limit_seconds', label: t('Time limit for deleting messages'), kind: 'limit', unit: 'minutes', options: [2, 10, 60, 1440, 10080] },
        bool('enable_read_receipts', t('Enable read receipts')),
      ] },
      { id: 'other-permissions', title: t('Other permissions'), fields: [
        select('add_custom_emoji_policy', t('Who can add custom emoji'), common),
        group('can_add_custom_emoji_group', t('Who can add custom emoji')),
        group('can_create_groups', t('Who can create user groups')),
        group('can_manage_all_groups', t('Who can administer all user groups')),
        group('can_create_bots_group', t('Who can create any bot')),
        group('can_create_write_only_bots_group', t('Who can create bots that send messages into Zulip')),
        group('can_summarize_topics_group', t('Who can use topic summaries')),
        group('can_manage_billing_group', t('Who can manage plans and billing')),
        select('user_group_edit_policy', t('Who can create and manage user groups'), common),
        select('bot_creation_policy', t('Who can add bots'), () => [[3, t('Admins')], [2, t('Everyone, but only admins can add generic bots')], [1, t('Everyone')]]),
      ] },
    ],
  },
];

/** The policies a group setting took the place of: shown only where register has no group setting for them. */
export const SUPERSEDED: Record<string, string> = {
  invite_to_realm_policy: 'can_invite_users_group',
  create_public_stream_policy: 'can_create_public_channel_group',
  create_private_stream_policy: 'can_create_private_channel_group',
  create_web_public_stream_policy: 'can_create_web_public_channel_group',
  invite_to_stream_policy: 'can_add_subscribers_group',
  wildcard_mention_policy: 'can_mention_many_users_group',
  private_message_policy: 'direct_message_permission_group',
  edit_topic_policy: 'can_move_messages_between_topics_group',
  move_messages_between_streams_policy: 'can_move_messages_between_channels_group',
  delete_own_message_policy: 'can_delete_own_message_group',
  add_custom_emoji_policy: 'can_add_custom_emoji_group',
  user_group_edit_policy: 'can_manage_all_groups',
  bot_creation_policy: 'can_create_bots_group',
};

/** Zulip's system groups in its pickers' order, with its names for them. */
export const SYSTEM_GROUPS = (): Array<[string, string]> => [
  ['role:internet', t('Everyone on the internet')], ['role:everyone', t('Everyone including guests')], ['role:members', t('Everyone except guests')],
  ['role:fullmembers', t('Full members')], ['role:moderators', t('Moderators')], ['role:administrators', t('Administrators')], ['role:owners', t('Owners')],
  ['role:nobody', t('Nobody')],
];

/** Settings only an owner may change (Zulip's OrganizationOwnerRequiredError). */
export const OWNER_ONLY = new Set(['invite_to_realm_policy', 'can_invite_users_group', 'create_multiuse_invite_group', 'can_create_groups', 'can_manage_all_groups', 'can_manage_billing_group', 'invite_required', 'emails_restricted_to_domains', 'disallow_disposable_email_addresses', 'waiting_period_threshold', 'message_retention_days']);
