/**
 * The wire objects of Parley's API as TypeBox schemas: the one declaration of each shape,
 * used by routes' `answer` declarations (and so the OpenAPI document), by the presenters'
 * return types (Static<typeof X>), and by the web app's types.
 *
 * Each schema is exactly what its presenter (src/presenters/) produces: required fields
 * are always sent, Optional ones are sometimes absent, nullable ones are unions with null,
 * and no other property is allowed (`additionalProperties: false`) unless the object is
 * open-ended by nature (said where it is). test/foundation/wire-schemas.test.ts checks
 * objects built through the API against them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** X or null. */
const Nullable = <S extends TSchema>(s: S) => Type.Union([s, Type.Null()]);
/** Only the declared properties. */
const closed = (id: string, description: string) => ({ $id: id, description, additionalProperties: false });
/** Always the empty list at this feature level (the field is sent because clients expect it). */
const EmptyList = (description: string) => Type.Array(Type.Unknown(), { maxItems: 0, description });

const ReactionType = Type.Union([Type.Literal('unicode_emoji'), Type.Literal('realm_emoji'), Type.Literal('service_extra_emoji')], {
  description: 'The emoji namespace: `unicode_emoji`, `realm_emoji` (custom emoji; emoji_code is its id) or `service_extra_emoji`.',
});

// ---------------------------------------------------------------------------------- users

/**
 * A user group as Zulip 5 serialises it (user_groups_in_realm_serialized): members
 * ascending. `direct_subgroup_ids` arrived with subgroups (feature level 127/131); Parley
 * has none, and sends the empty list because newer clients (the Flutter app) require it.
 */
/** A group-setting value (feature level 258): a named group's id, or an anonymous group. */
export const WireGroupSettingValue = Type.Union([
  Type.Integer(),
  Type.Object({ direct_members: Type.Array(Type.Integer()), direct_subgroups: Type.Array(Type.Integer()) }, { additionalProperties: false }),
]);

export const WireUserGroup = Type.Object({
  id: Type.Integer(), name: Type.String(), description: Type.String(), members: Type.Array(Type.Integer()),
  direct_subgroup_ids: Type.Array(Type.Integer()), is_system_group: Type.Boolean(),
  can_mention_group_id: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature levels 191 to 197: the group whose members may mention this one.' })),
  can_mention_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, {
    description: 'From feature level 198 (was can_mention_group_id): the group whose members may mention this one; from 258 it may be an anonymous group.',
  })),
  can_manage_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 283: who may manage the group.' })),
  can_join_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 301: who may join the group.' })),
  can_add_members_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 305: who may add members to the group.' })),
  can_leave_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 308: who may leave the group.' })),
  can_remove_members_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 324: who may remove members from the group.' })),
  creator_id: Type.Optional(Nullable(Type.Integer({ description: 'Feature level 292: who created the group; null if unknown.' }))),
  date_created: Type.Optional(Nullable(Type.Integer({ description: 'Feature level 292: when the group was created (UNIX seconds); null if unknown.' }))),
  deactivated: Type.Optional(Type.Boolean({ description: 'Feature level 290: whether the group is deactivated.' })),
}, closed('UserGroup', 'A user group of the organization, its members by user id, ascending.'));
export type WireUserGroup = Static<typeof WireUserGroup>;

/** A user's value of one custom profile field. */
export const WireProfileValue = Type.Object({
  value: Type.String(),
  rendered_value: Type.Optional(Type.String({ description: 'HTML; only for the field types whose value is rendered (text-like fields).' })),
}, closed('ProfileValue', "A user's value of a custom profile field."));
export type WireProfileValue = Static<typeof WireProfileValue>;

const userProperties = {
  user_id: Type.Integer(),
  email: Type.String({ description: 'Display email address.' }),
  full_name: Type.String(),
  avatar_url: Nullable(Type.String({ description: 'Null for gravatar users when `client_gravatar` is true: the client computes the URL itself.' })),
  avatar_version: Type.Integer(),
  date_joined: Type.String({ description: 'ISO 8601 timestamp with offset.' }),
  timezone: Type.String({ description: 'May be the empty string.' }),
  is_active: Type.Boolean(),
  // The role, again, as Zulip's older flags.
  is_admin: Type.Boolean(), is_owner: Type.Boolean(), is_guest: Type.Boolean(),
  is_billing_admin: Type.Optional(Type.Boolean({ description: 'Removed at feature level 363.' })),
  is_bot: Type.Boolean(),
  bot_type: Nullable(Type.Integer({ description: 'Null for non-bots; an integer for bots.' })),
  role: Type.Integer({ description: 'Organization-level role: 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest.' }),
  bot_owner_id: Type.Optional(Nullable(Type.Integer({ description: 'Present for bots only.' }))),
  delivery_email: Type.Optional(Nullable(Type.String({
    description: 'The real email address. Below feature level 163 present only when the viewer may see it; from 163 always present, null when hidden by the user\'s email_address_visibility.',
  }))),
  profile_data: Type.Optional(Type.Record(Type.String(), WireProfileValue, {
    description: 'Present only when `include_custom_profile_fields` is true, and for non-bot users: values keyed by custom profile field id (as strings).',
  })),
};

/** A user as GET /users, GET /users/{user_id}, register's `realm_users` and realm_user add events show it. */
export const WireUser = Type.Object(userProperties, closed('User', 'A user of the organization (human or bot).'));
export type WireUser = Static<typeof WireUser>;

/** GET /users/me: the caller as a User, with the avatar URL always given and the deprecated max_message_id. */
export const WireOwnUser = Type.Object({
  ...userProperties,
  avatar_url: Type.String(),
  max_message_id: Type.Integer({ description: 'Deprecated: the id of the newest message the user received (0 if none).' }),
}, closed('OwnUser', 'The requesting user, as GET /users/me answers.'));
export type WireOwnUser = Static<typeof WireOwnUser>;

/** register's `user_status` entries (Zulip 5's format_user_status): only what is set. */
export const WireUserStatus = Type.Object({
  away: Type.Optional(Type.Literal(true, { description: 'Present (true) only when the user is away.' })),
  status_text: Type.Optional(Type.String({ description: 'Present only when not empty.' })),
  emoji_name: Type.Optional(Type.String({ description: 'Present, with emoji_code and reaction_type, only when the status has an emoji.' })),
  emoji_code: Type.Optional(Type.String()),
  reaction_type: Type.Optional(ReactionType),
}, closed('UserStatus', "A user's status: away flag, status text and status emoji, each present only when set."));
export type WireUserStatus = Static<typeof WireUserStatus>;

// ----------------------------------------------------------------------------------- bots

/** One of an outgoing-webhook bot's services (Zulip's get_service_dicts_for_bot). */
export const WireBotService = Type.Object({
  base_url: Type.String({ description: 'The endpoint the bot posts to.' }),
  interface: Type.Integer({ description: 'Payload format: 1 Zulip, 2 Slack compatible.' }),
  token: Type.String({ description: 'Sent with every request so the endpoint can tell it comes from this server.' }),
}, closed('BotService', "An outgoing-webhook bot's endpoint."));
export type WireBotService = Static<typeof WireBotService>;

const defaultStreamsProperties = {
  default_sending_stream: Nullable(Type.String({ description: "Name of the stream the bot's messages go to when they name none." })),
  default_events_register_stream: Nullable(Type.String({ description: "Name of the stream the bot's event queues follow." })),
  default_all_public_streams: Type.Boolean({ description: "Whether the bot's event queues follow every public stream." }),
};

/** What every answer about one bot carries. */
const botKeyProperties = { user_id: Type.Integer(), api_key: Type.String(), avatar_url: Type.String() };

/** register's `realm_bots` and realm_bot add events. */
export const WireBot = Type.Object({
  user_id: Type.Integer(),
  full_name: Type.String(),
  api_key: Type.String(),
  avatar_url: Type.String(),
  email: Type.String(),
  bot_type: Nullable(Type.Integer({ description: '1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded; always set for a bot.' })),
  ...defaultStreamsProperties,
  is_active: Type.Boolean(),
  owner_id: Nullable(Type.Integer({ description: "The owner's user id; null for a bot without owner." })),
  services: Type.Array(WireBotService, { description: 'Outgoing-webhook bots only; empty for other bots.' }),
}, closed('Bot', 'A bot of the organization, with its API key, as its owner (and administrators) see it.'));
export type WireBot = Static<typeof WireBot>;

/** GET /bots' element (Zulip's get_bots_backend: the email as `username`; `user_id` is Parley's addition). */
export const WireListedBot = Type.Object({
  username: Type.String({ description: "The bot's email address." }),
  full_name: Type.String(),
  ...botKeyProperties,
  ...defaultStreamsProperties,
}, closed('ListedBot', 'An active bot as GET /bots lists it.'));
export type WireListedBot = Static<typeof WireListedBot>;

/** POST /bots' answer. */
export const WireCreatedBot = Type.Object({
  ...botKeyProperties,
  ...defaultStreamsProperties,
}, closed('CreatedBot', 'The bot just created: its id, key and defaults.'));
export type WireCreatedBot = Static<typeof WireCreatedBot>;

/** PATCH /bots/{bot_id}'s answer (Zulip's patch_bot_backend). */
export const WirePatchedBot = Type.Object({
  full_name: Type.String(), avatar_url: Type.String(),
  service_interface: Type.Integer({ description: 'The interface asked for (1 when not given).' }),
  service_payload_url: Nullable(Type.String({ description: 'The payload URL asked for, or null.' })),
  config_data: Type.Null({ description: 'Embedded bots only; Parley has none.' }),
  ...defaultStreamsProperties,
  bot_owner: Type.Optional(Type.String({ description: "The owner's email; absent for a bot without owner." })),
}, closed('PatchedBot', 'The bot as the edit left it.'));
export type WirePatchedBot = Static<typeof WirePatchedBot>;

// -------------------------------------------------------------------------------- streams

const streamProperties = {
  stream_id: Type.Integer(), name: Type.String(),
  description: Type.String({ description: 'The description as written (limited markdown).' }),
  rendered_description: Type.String({ description: 'The description rendered as HTML.' }),
  invite_only: Type.Boolean({ description: 'Whether the stream is private.' }),
  is_web_public: Type.Boolean(),
  history_public_to_subscribers: Type.Boolean({ description: 'Whether subscribers see messages sent before they joined.' }),
  stream_post_policy: Type.Integer({ description: '1 anyone, 2 administrators only, 3 full members only, 4 moderators only.' }),
  message_retention_days: Nullable(Type.Integer({ description: 'Null: the organization default; -1: unlimited.' })),
  date_created: Type.Integer({ description: 'UNIX seconds.' }),
  first_message_id: Nullable(Type.Integer({ description: 'The oldest message of the stream; null while it has none.' })),
  is_announcement_only: Type.Boolean({ description: 'Deprecated: stream_post_policy is 2.' }),
  can_remove_subscribers_group_id: Type.Optional(Type.Integer({ description: 'Feature levels 142 to 196: the group whose members may unsubscribe others.' })),
  can_remove_subscribers_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'From feature level 197 (was can_remove_subscribers_group_id): who may unsubscribe others; any group-setting value from 320.' })),
  is_archived: Type.Optional(Type.Boolean({ description: 'Feature level 315: whether the stream is archived.' })),
  is_recently_active: Type.Optional(Type.Boolean({ description: 'Feature level 323: a message within the last 180 days.' })),
  can_administer_channel_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 325: who administers the channel besides organization administrators.' })),
  can_send_message_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 333: who may post (replaces stream_post_policy).' })),
  can_add_subscribers_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 342: who may add subscribers.' })),
  can_subscribe_group: Type.Optional(Type.Union(WireGroupSettingValue.anyOf, { description: 'Feature level 357: who may subscribe themselves.' })),
  creator_id: Type.Optional(Nullable(Type.Integer({ description: 'Who created the stream; null when unknown (older streams). From feature level 254; always in events.' }))),
};

/** GET /streams/{stream_id}, register's `streams`, stream create/delete events and default streams. */
export const WireStream = Type.Object(streamProperties, closed('Stream', 'A stream: a named channel whose messages carry a topic.'));
export type WireStream = Static<typeof WireStream>;

/** GET /streams' element: `is_default` only when include_default was asked for. */
export const WireListedStream = Type.Object({
  ...streamProperties,
  is_default: Type.Optional(Type.Boolean({ description: 'Whether new users join the stream; present only with `include_default`.' })),
}, closed('ListedStream', 'A stream as GET /streams lists it.'));
export type WireListedStream = Static<typeof WireListedStream>;

/** The short form in subscription remove events and `unsubscribed` lists. */
export const WireStreamRef = Type.Object({ stream_id: Type.Integer(), name: Type.String() }, closed('StreamRef', 'A stream by id and name.'));
export type WireStreamRef = Static<typeof WireStreamRef>;

const notificationSetting = (what: string) => Nullable(Type.Boolean({ description: `${what}; null follows the user's default.` }));

/**
 * The subscription object of GET /users/me/subscriptions, register's `subscriptions` and
 * `unsubscribed`, and subscription add events: the stream and the user's settings for it.
 */
export const WireSubscription = Type.Object({
  ...streamProperties,
  color: Type.String({ description: "The stream's color for this user, as #rrggbb." }),
  is_muted: Type.Boolean(),
  in_home_view: Type.Boolean({ description: 'Deprecated: the opposite of is_muted.' }),
  pin_to_top: Type.Boolean(),
  desktop_notifications: notificationSetting('Desktop notifications'),
  audible_notifications: notificationSetting('Audible notifications'),
  push_notifications: notificationSetting('Mobile push notifications'),
  email_notifications: notificationSetting('Email notifications'),
  wildcard_mentions_notify: notificationSetting('Notify on wildcard mentions'),
  role: Type.Optional(Type.Integer({ description: "The user's role in the stream (50: subscriber); not in answers from feature level 133, always in events." })),
  email_address: Type.Optional(Type.String({ description: 'The address that posts to the stream by email; not in answers from feature level 226 (GET /streams/{id}/email_address), always in events.' })),
  stream_weekly_traffic: Nullable(Type.Integer({ description: 'Messages a week; null when not computed (always, in Parley).' })),
  subscribers: Type.Optional(Type.Array(Type.Integer(), { description: 'User ids; present only when subscribers were asked for.' })),
}, closed('Subscription', "A stream the user is (or was) subscribed to, with the user's settings for it."));
export type WireSubscription = Static<typeof WireSubscription>;

/** register's `never_subscribed` entries. */
export const WireNeverSubscribedStream = Type.Object({
  ...streamProperties,
  stream_weekly_traffic: Nullable(Type.Integer()),
  subscribers: Type.Optional(Type.Array(Type.Integer())),
}, closed('NeverSubscribedStream', 'A stream the user may see but never joined.'));
export type WireNeverSubscribedStream = Static<typeof WireNeverSubscribedStream>;

// ------------------------------------------------------------------------------- messages

/** A participant of a private conversation in `display_recipient`, and the deprecated `user` of a reaction. */
export const WireDisplayRecipientUser = Type.Object({
  id: Type.Integer(), email: Type.String(), full_name: Type.String(), is_mirror_dummy: Type.Boolean(),
}, closed('DisplayRecipientUser', 'A user in a private conversation.'));
export type WireDisplayRecipientUser = Static<typeof WireDisplayRecipientUser>;

/** One entry of a message's `reactions`. */
export const WireReaction = Type.Object({
  emoji_name: Type.String({ description: 'Human-readable emoji name.' }),
  emoji_code: Type.String({ description: 'Identifier within the namespace of reaction_type: the codepoint encoding for unicode_emoji, the emoji id for realm_emoji.' }),
  reaction_type: ReactionType,
  user_id: Type.Integer({ description: 'The user who added the reaction.' }),
  user: Type.Optional(Type.Object({
    id: Type.Integer(), email: Type.String(), full_name: Type.String(), is_mirror_dummy: Type.Boolean(),
  }, { description: 'Deprecated: the user who reacted. Absent from feature level 328.', additionalProperties: false })),
}, closed('Reaction', 'An emoji reaction to a message.'));
export type WireReaction = Static<typeof WireReaction>;

/** One of a message's `topic_links`. */
export const WireTopicLink = Type.Object({
  text: Type.String({ description: 'The part of the topic matched.' }), url: Type.String(),
}, closed('TopicLink', "A link the organization's linkifiers made of the topic."));
export type WireTopicLink = Static<typeof WireTopicLink>;

/** An entry of a message's `edit_history`, as the edit stored it (feature level 118 names). */
export const WireEditHistoryEntry = Type.Object({
  user_id: Nullable(Type.Integer({ description: 'The editor.' })),
  timestamp: Type.Integer({ description: 'UNIX seconds of the edit.' }),
  prev_content: Type.Optional(Type.String({ description: 'Only when the content was edited: the content before.' })),
  prev_rendered_content: Type.Optional(Type.String({ description: 'Only when the content was edited: its HTML before.' })),
  prev_rendered_content_version: Type.Optional(Type.Integer()),
  prev_stream: Type.Optional(Type.Integer({ description: 'Only when the stream was changed: the stream id before.' })),
  stream: Type.Optional(Type.Integer({ description: 'Only when the stream was changed: the stream id after.' })),
  prev_topic: Type.Optional(Type.String({ description: 'Only when the topic was changed: the topic before.' })),
  topic: Type.Optional(Type.String({ description: 'Only when the topic was changed: the topic after.' })),
}, closed('EditHistoryEntry', 'One edit of a message; the fields beyond user_id and timestamp appear for the kinds of change it made.'));
export type WireEditHistoryEntry = Static<typeof WireEditHistoryEntry>;

/** The Message object of GET /messages, GET /messages/{message_id} and message events. */
export const WireMessage = Type.Object({
  id: Type.Integer({ description: 'Unique message id; messages are displayed sorted by id.' }),
  type: Type.Union([Type.Literal('stream'), Type.Literal('private')]),
  sender_id: Type.Integer(),
  sender_email: Type.String(),
  sender_full_name: Type.String(),
  sender_realm_str: Type.String({ description: "The sender's organization identifier, unique only within one server." }),
  avatar_url: Nullable(Type.String({ description: 'Null only with `client_gravatar` for a gravatar user.' })),
  client: Type.String({ description: 'The client that sent the message.' }),
  content: Type.String({ description: 'HTML when `apply_markdown` is true, else the markdown source.' }),
  content_type: Type.Union([Type.Literal('text/html'), Type.Literal('text/x-markdown')]),
  display_recipient: Type.Union([
    Type.String({ description: 'Stream messages: the stream name.' }),
    Type.Array(WireDisplayRecipientUser, { description: 'Private messages: the participants, sender included, by id.' }),
  ]),
  recipient_id: Type.Integer({ description: 'The id of the set of recipients.' }),
  subject: Type.String({ description: 'The topic; empty for private messages.' }),
  topic_links: Type.Array(WireTopicLink),
  timestamp: Type.Integer({ description: 'UNIX seconds of sending.' }),
  is_me_message: Type.Boolean({ description: 'A /me status message.' }),
  reactions: Type.Array(WireReaction),
  submessages: EmptyList('Data of experimental integrations: always empty in Parley.'),
  stream_id: Type.Optional(Type.Integer({ description: 'Present only for stream messages.' })),
  flags: Type.Optional(Type.Array(Type.String(), { description: "The reader's flags on the message (absent in events, which carry them beside)." })),
  last_edit_timestamp: Type.Optional(Type.Integer({ description: 'UNIX seconds of the last edit; absent if never edited. From feature level 365, of the last content edit only.' })),
  last_moved_timestamp: Type.Optional(Type.Integer({ description: 'From feature level 365: UNIX seconds of the last move to another stream or topic (resolving a topic is none); absent if never moved.' })),
  edit_history: Type.Optional(Type.Array(WireEditHistoryEntry, { description: 'Most recent first; absent if never edited or the organization hides edit history.' })),
  match_content: Type.Optional(Type.String({ description: 'Keyword searches only: the HTML content with matches highlighted.' })),
  match_subject: Type.Optional(Type.String({ description: 'Keyword searches only: the escaped topic with matches highlighted.' })),
}, closed('Message', 'A stream or private message as a reader receives it.'));
export type WireMessage = Static<typeof WireMessage>;

/** A stored draft. */
export const WireDraft = Type.Object({
  id: Type.Integer(),
  type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')], { description: '`` (unaddressed), `stream` or `private`.' }),
  to: Type.Array(Type.Integer(), { description: 'Stream drafts: one stream id; private drafts: the user ids; unaddressed: empty.' }),
  topic: Type.String(),
  content: Type.String(),
  timestamp: Type.Number({ description: 'UNIX seconds of the last edit.' }),
}, closed('Draft', 'A message being composed, kept on the server for the user.'));
export type WireDraft = Static<typeof WireDraft>;

/** A scheduled message (feature levels 173-184), shown only to its sender. */
const scheduledFields = {
  scheduled_message_id: Type.Integer(),
  content: Type.String({ description: 'The markdown as written.' }),
  rendered_content: Type.String({ description: 'The HTML it rendered to when scheduled or last edited.' }),
  scheduled_delivery_timestamp: Type.Integer({ description: 'UNIX seconds when it is to be sent.' }),
  failed: Type.Boolean({ description: 'The server tried to send it and could not (feature level 181); it is kept until edited or deleted.' }),
};
export const WireScheduledStreamMessage = Type.Object({
  ...scheduledFields, type: Type.Literal('stream'), to: Type.Integer({ description: 'The stream id.' }), topic: Type.String(),
}, closed('ScheduledStreamMessage', 'A stream message to be sent later.'));
export const WireScheduledPrivateMessage = Type.Object({
  ...scheduledFields, type: Type.Literal('private'), to: Type.Array(Type.Integer(), { description: 'The other people\'s ids, or the sender\'s alone for a note to self.' }),
}, closed('ScheduledPrivateMessage', 'A private message to be sent later.'));
export const WireScheduledMessage = Type.Union([WireScheduledStreamMessage, WireScheduledPrivateMessage]);
export type WireScheduledMessage = Static<typeof WireScheduledMessage>;

/** A saved snippet (feature level 297), shown only to its owner. */
export const WireSavedSnippet = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  content: Type.String(),
  date_created: Type.Integer({ description: 'UNIX seconds when it was saved.' }),
}, closed('SavedSnippet', 'A reusable text the user saved.'));
export type WireSavedSnippet = Static<typeof WireSavedSnippet>;

// ---------------------------------------------------------------------------- organization

/** A custom profile field as Zulip's CustomProfileField.as_dict. */
export const WireProfileField = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.Integer({ description: '1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 person, 7 external account, 8 pronouns (feature level 151).' }),
  hint: Type.String(),
  field_data: Type.String({ description: "JSON text: a list of options' choices (type 3), an external account's subtype (type 7), else empty." }),
  order: Type.Integer(),
  display_in_profile_summary: Type.Optional(Type.Literal(true, { description: 'Present (true) only for the fields shown in user cards (feature level 146).' })),
  required: Type.Optional(Type.Boolean({ description: 'Whether users must fill the field (feature level 244; always present from it).' })),
  editable_by_user: Type.Optional(Type.Boolean({ description: 'Whether users may set their own value (feature level 296; always present from it).' })),
}, closed('ProfileField', 'A custom profile field of the organization.'));
export type WireProfileField = Static<typeof WireProfileField>;

/** One entry of GET /realm/emoji and register's `realm_emoji` (`still_url` always present from level 113). */
export const WireRealmEmoji = Type.Object({
  id: Type.String({ description: 'The emoji id, as a string (the emoji_code of its reactions).' }),
  name: Type.String(),
  source_url: Type.String({ description: "The image's path on the server." }),
  still_url: Nullable(Type.String({ description: 'For an animated emoji, a still image of its first frame; else null.' })),
  deactivated: Type.Boolean({ description: 'Removed emoji stay listed: old reactions still name them.' }),
  author_id: Nullable(Type.Integer({ description: 'Who uploaded it; null if unknown.' })),
}, closed('RealmEmoji', 'A custom emoji of the organization.'));
export type WireRealmEmoji = Static<typeof WireRealmEmoji>;

/** The organization's custom emoji keyed by id (GET /realm/emoji's `emoji`, register's `realm_emoji`). */
export const WireRealmEmojiDict = Type.Record(Type.String(), WireRealmEmoji, {
  $id: 'RealmEmojiDict', description: 'Custom emoji by id (as a string), deactivated ones included.',
});
export type WireRealmEmojiDict = Static<typeof WireRealmEmojiDict>;

/** GET /attachments' element (Zulip 5's Attachment.to_dict; times in JavaScript milliseconds). */
export const WireAttachment = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'The file name as uploaded.' }),
  path_id: Type.String({ description: 'The path under /user_uploads/.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  create_time: Type.Integer({ description: 'Milliseconds since the epoch.' }),
  messages: Type.Array(Type.Object({
    id: Type.Integer(), date_sent: Type.Integer({ description: 'Milliseconds since the epoch.' }),
  }, { additionalProperties: false }), { description: 'The messages that link the file.' }),
}, closed('Attachment', 'A file the user uploaded.'));
export type WireAttachment = Static<typeof WireAttachment>;

const inviteProperties = {
  id: Type.Integer(),
  invited_by_user_id: Type.Integer(),
  invited: Type.Integer({ description: 'UNIX seconds of the invitation.' }),
  expiry_date: Nullable(Type.Integer({ description: 'UNIX seconds; null for an invitation that never expires.' })),
  invited_as: Type.Integer({ description: 'The role the invitee gets.' }),
};

/** GET /invites' element (Zulip 5's do_get_user_invites): an email invitation or a reusable link. */
export const WireInvite = Type.Union([
  Type.Object({
    email: Type.String(), ...inviteProperties, is_multiuse: Type.Literal(false),
    notify_referrer_on_join: Type.Optional(Type.Boolean({ description: 'Whether the inviter is told when the invitation is accepted (feature level 267).' })),
  }, { description: 'An invitation by email (works once).', additionalProperties: false }),
  Type.Object({
    ...inviteProperties, link_url: Type.String({ description: 'The link to share.' }), is_multiuse: Type.Literal(true),
  }, { description: 'A reusable invitation link.', additionalProperties: false }),
], { $id: 'Invite', description: 'A pending invitation to the organization.' });
export type WireInvite = Static<typeof WireInvite>;

/** GET /realm/linkifiers' element and register's `realm_linkifiers`, in the order they apply. */
export const WireLinkifier = Type.Union([
  Type.Object({
    pattern: Type.String({ description: 'The regular expression matched in messages and topics.' }),
    url_format: Type.String({ description: 'The URL each match links to, with %(name)s for named groups.' }),
    id: Type.Integer(),
  }, { description: 'Before feature level 176.', additionalProperties: false }),
  Type.Object({
    pattern: Type.String({ description: 'The regular expression matched in messages and topics.' }),
    url_template: Type.String({ description: 'The RFC 6570 URL template each match links to, its variables the named groups.' }),
    id: Type.Integer(),
  }, { description: 'From feature level 176.', additionalProperties: false }),
], { $id: 'Linkifier', description: 'A rule turning text into links.' });
export type WireLinkifier = Static<typeof WireLinkifier>;

/** GET /server_settings (no authentication): how to sign in, and what server this is. */
export const WireServerSettings = Type.Object({
  authentication_methods: Type.Object({
    password: Type.Boolean(), dev: Type.Boolean(), email: Type.Boolean(), ldap: Type.Boolean(), remoteuser: Type.Boolean(),
    github: Type.Boolean(), azuread: Type.Boolean(), gitlab: Type.Boolean(), apple: Type.Boolean(), google: Type.Boolean(),
    saml: Type.Boolean(), 'openid connect': Type.Boolean(),
  }, { description: 'Which authentication methods are enabled (deprecated in Zulip for external_authentication_methods).', additionalProperties: false }),
  external_authentication_methods: Type.Array(Type.Object({
    name: Type.String({ description: '`oidc`, or `saml:<idp>` for each SAML identity provider.' }),
    display_name: Type.String(),
    display_icon: Type.Union([Type.String(), Type.Null()]),
    login_url: Type.String({ description: 'Relative to the organization; the apps add mobile_flow_otp or desktop_flow_otp.' }),
    signup_url: Type.String(),
  }, { additionalProperties: false }), { description: 'The single sign-on methods configured (PARLEY_OIDC_*, PARLEY_SAML_IDPS), as buttons.' }),
  service_feature_level: Type.Integer({ description: 'The feature level of the interface the server speaks.' }),
  zulip_feature_level: Type.Integer({ description: "The same, under Zulip's name." }),
  zulip_version: Type.String(),
  service_merge_base: Type.String(),
  zulip_merge_base: Type.String(),
  push_notifications_enabled: Type.Boolean(),
  is_incompatible: Type.Boolean({ description: 'Whether the requesting client is too old for this server.' }),
  email_auth_enabled: Type.Boolean(),
  require_email_format_usernames: Type.Boolean(),
  realm_uri: Type.String({ description: "The organization's URL." }),
  realm_url: Type.Optional(Type.String({ description: "The organization's URL (feature level 257; realm_uri's new name)." })),
  realm_name: Type.String(),
  realm_icon: Type.String({ description: "The organization's icon URL." }),
  realm_description: Type.String({ description: "The organization's description, as HTML." }),
  realm_web_public_access_enabled: Type.Boolean({ description: 'Whether visitors without an account may read web-public streams.' }),
}, closed('ServerSettings', 'The server and organization as a client sees them before signing in.'));
export type WireServerSettings = Static<typeof WireServerSettings>;

/** The legacy per-client presence entry Zulip clients at this feature level read. */
export const WireClientPresence = Type.Object({
  client: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('idle')]),
  timestamp: Type.Integer({ description: 'UNIX seconds: last active when active, else last connected.' }),
  pushable: Type.Boolean(),
}, closed('ClientPresence', "A user's presence as one client reported it."));
export type WireClientPresence = Static<typeof WireClientPresence>;

export const WireAggregatedPresence = Type.Object({
  client: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('idle')]), timestamp: Type.Integer(),
}, closed('AggregatedPresence', "A user's presence over all their clients."));
export type WireAggregatedPresence = Static<typeof WireAggregatedPresence>;

/**
 * A user's entry of register's `presences` and the presence endpoints: `aggregated`, and
 * one entry per client keyed by the client's name. The client names are open-ended (what
 * the clients called themselves), hence `additionalProperties` as ClientPresence.
 */
export const WirePresence = Type.Object({ aggregated: WireAggregatedPresence }, {
  $id: 'Presence', description: "A user's presence: `aggregated`, and an entry per client named by the client.",
  additionalProperties: WireClientPresence,
});
export type WirePresence = Static<typeof WirePresence> & { [client: string]: WireClientPresence | WireAggregatedPresence };

/** A user's entry in the modern format (slim_presence from feature level 178): one row per user, no client. */
export const WireModernPresence = Type.Object({
  active_timestamp: Type.Integer({ description: 'UNIX seconds: last active.' }),
  idle_timestamp: Type.Integer({ description: 'UNIX seconds: last connected, active or idle.' }),
}, closed('ModernPresence', "A user's presence: when last active, and when last connected at all."));
export type WireModernPresence = Static<typeof WireModernPresence>;

/**
 * The `presences` of register and the presence endpoints: users keyed by email, or by user
 * id (as a string) with slim_presence, whose entries are modern from feature level 178.
 */
export const WirePresences = Type.Record(Type.String(), Type.Union([WirePresence, WireModernPresence]), {
  $id: 'Presences', description: "Active users' presence, by email or (slim_presence) by user id; with slim_presence from feature level 178, the modern entry.",
});
export type WirePresences = Static<typeof WirePresences>;

/** A user's custom profile field values, by field id (a User's profile_data). */
export type WireProfileData = Record<string, WireProfileValue>;
