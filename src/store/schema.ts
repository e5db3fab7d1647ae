import type { Generated, Selectable } from 'kysely';
import type { RecipientType } from '../lib/recipient-type.js';

/**
 * Table types. Booleans are stored as integers 0/1 on both engines so that every
 * query runs unchanged on SQLite and PostgreSQL. Times are UNIX seconds.
 * JSON-valued columns hold JSON text. Beside a table the layers pass rows of: its row
 * type (what a select returns), re-exported by ./rows.ts and src/rows.ts.
 */
export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  /** JSON object of organization settings; defaults live in src/lib/realm-settings.ts. */
  settings: string;
  deactivated: number;
  date_created: number;
}
export type RealmRow = Selectable<RealmTable>;

export interface UserTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  email_lower: string;
  delivery_email: string;
  full_name: string;
  password_hash: string | null;
  api_key: string;
  role: number;
  is_active: number;
  is_bot: number;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_billing_admin: number;
  timezone: string;
  date_joined: number;
  /** 'G' gravatar, 'U' uploaded. */
  avatar_source: string;
  avatar_version: number;
  /** An uploaded avatar's storage key after `<realm_id>/` (migration 068); null while none was uploaded. */
  avatar_key: Generated<string | null>;
  /** JSON object of personal settings that differ from the defaults. */
  settings: string;
  /** A bot the server itself writes as (Notification Bot); never listed among the realm's users. */
  is_system_bot: Generated<number>;
  /** Zulip's can_change_user_emails special permission (level 313; migration 060), granted from the command line. */
  can_change_user_emails: Generated<number>;
  /** Bots only: the stream a bot's messages go to when it names none, and the stream (or all public ones) its queues follow. */
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: Generated<number>;
  /** Soft-deactivated (Zulip's long_term_idle, migration 074): ordinary stream messages make no recipient row for them until caught up. */
  long_term_idle: Generated<number>;
}
export type UserRow = Selectable<UserTable>;

/** When each person last used the server (migration 074), written at most hourly. */
export interface UserActivityTable {
  user_id: number;
  last_visit: number;
}

/**
 * A soft-deactivated person's catch-up mark (migration 077; off `users`, whose every write
 * retires the caches). Kept after they return until the sweep of sends in flight has run.
 */
export interface IdleMarkTable {
  user_id: number;
  /** Their recipient rows are complete up to this message. */
  last_active_message_id: number;
  /** The rows a catch-up makes for messages up to this one are read (history an import left out). */
  read_through: number | null;
}

/** An outgoing-webhook bot's endpoint (Zulip's Service). `interface`: 1 Zulip's payload, 2 Slack's. */
/** Zulip's BotStorageData: one string value per user and key (migration 026). */
export interface BotStorageTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  value: string;
}

export interface BotServiceTable {
  id: Generated<number>;
  bot_id: number;
  name: string;
  base_url: string;
  interface: number;
  token: string;
}
export type BotServiceRow = Selectable<BotServiceTable>;

/** Zulip's recipient: what a message is addressed to (RecipientType says what type_id names). */
export interface RecipientTable {
  id: Generated<number>;
  type: RecipientType;
  type_id: number;
}

export interface HuddleTable {
  id: Generated<number>;
  /** Sorted, comma-joined user ids. */
  huddle_hash: string;
  recipient_id: number | null;
}

export interface StreamTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  name_lower: string;
  description: string;
  rendered_description: string;
  invite_only: number;
  is_web_public: number;
  history_public_to_subscribers: number;
  stream_post_policy: number;
  /**
   * Group-setting values as JSON text (migration 054; src/lib/stream-group-settings.ts):
   * who may unsubscribe others (level 142, any value from 320), administer the channel (325),
   * post (333), add subscribers (342), subscribe themselves (357).
   */
  can_remove_subscribers_group: string;
  can_administer_channel_group: string;
  can_send_message_group: string;
  can_add_subscribers_group: string;
  can_subscribe_group: string;
  /** Zulip's is_recently_active (level 323; migration 054): a message within 180 days, refreshed daily (src/actions/stream-activity.ts). */
  is_recently_active: Generated<number>;
  /** null: organization default; -1: unlimited. */
  message_retention_days: number | null;
  date_created: number;
  first_message_id: number | null;
  deactivated: number;
  recipient_id: number | null;
  email_token: string;
  /** Who created the stream (migration 046, feature level 254); null for older streams. */
  creator_id: Generated<number | null>;
}
export type StreamRow = Selectable<StreamTable>;

export interface SubscriptionTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number;
  active: number;
  is_muted: number;
  color: string;
  pin_to_top: number;
  desktop_notifications: number | null;
  audible_notifications: number | null;
  push_notifications: number | null;
  email_notifications: number | null;
  wildcard_mentions_notify: number | null;
}
export type SubscriptionRow = Selectable<SubscriptionTable>;

export interface DefaultStreamTable {
  realm_id: number;
  stream_id: number;
}

/** A user's policy for one topic (Zulip's UserTopic): 1 muted, 2 unmuted, 3 followed; no row is "inherit". */
export interface UserTopicTable {
  user_id: number;
  stream_id: number;
  topic: string;
  topic_lower: string;
  last_updated: number;
  visibility_policy: Generated<number>;
}

export interface MessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  /** Denormalised from the recipient for fast stream narrows; null for private messages. */
  stream_id: number | null;
  topic: string;
  topic_lower: string;
  content: string;
  rendered_content: string;
  rendered_content_version: number;
  date_sent: number;
  client: string;
  last_edit_time: number | null;
  /** JSON array, most recent first; null when never edited. */
  edit_history: string | null;
  is_me_message: number;
  has_link: number;
  has_image: number;
  has_attachment: number;
}
export type MessageRow = Selectable<MessageTable>;

/** Bitmask values follow Zulip's UserMessage.flags. */
export interface UserMessageTable {
  user_id: number;
  message_id: number;
  flags: number;
}

export interface ReactionTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface AlertWordTable {
  id: Generated<number>;
  user_id: number;
  realm_id: number;
  word: string;
}

export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  /** Name of the client that last reported, as Zulip names clients. */
  client: string;
  last_active_time: number;
  last_connected_time: number;
  /** The organization's number for this write (migration 034): each write takes the next. */
  last_update_id: number;
}

/** PostgreSQL only (migration 034): each organization's last presence number, bumped by each write. */
export interface PresenceSequenceTable {
  realm_id: number;
  last_update_id: number;
}

/** A synchronised draft (migration 015): `recipient` is its `to` as JSON, `last_edit_time` whole seconds. */
export interface DraftTable {
  id: Generated<number>;
  user_id: number;
  type: '' | 'stream' | 'private';
  recipient: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

/** A scheduled message (migration 045): `recipient` is a private one's `to` as JSON; times are UNIX seconds. */
export interface ScheduledMessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  type: 'stream' | 'private';
  stream_id: number | null;
  recipient: string;
  topic: string;
  content: string;
  rendered_content: string;
  client: string;
  scheduled_timestamp: number;
  read_by_sender: number;
  delivered: Generated<number>;
  delivered_message_id: number | null;
  failed: Generated<number>;
  failure_message: string | null;
  claimed_until: number | null;
}

/** A saved snippet (migration 045): `date_created` UNIX seconds. */
export interface SavedSnippetTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

/** One row: moved by a trigger on every write to the tables in-process caches read (migration 012). */
export interface CacheEpochTable {
  id: number;
  value: number;
}

/** A requested email change; status 0 pending, 1 confirmed, 2 replaced by a later request. */
export interface EmailChangeTable {
  id: Generated<number>;
  user_id: number;
  realm_id: number;
  old_email: string;
  new_email: string;
  token: string;
  date_created: number;
  status: number;
}

/** A user's status (migration 016); `away` 0/1 as Zulip 5 keeps it. */
export interface UserStatusTable {
  user_id: number;
  realm_id: number;
  status_text: Generated<string>;
  away: Generated<number>;
  emoji_name: Generated<string>;
  emoji_code: Generated<string>;
  reaction_type: Generated<string>;
  timestamp: number;
}
export type UserStatusRow = Selectable<UserStatusTable>;

/** One user muting another (migration 017). */
export interface MutedUserTable {
  id: Generated<number>;
  user_id: number;
  muted_user_id: number;
  realm_id: number;
  date_muted: number;
}

/** A user group of an organization (migration 020). */
export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: Generated<string>;
  is_system_group: Generated<number>;
  /** Who may mention the group (feature level 191; migration 040): a group's id, null only before it. */
  can_mention_group_id: number | null;
  /** An anonymous group as can_mention_group (level 258; migration 048): JSON `{direct_members, direct_subgroups}`; null when it is can_mention_group_id. */
  can_mention_group_anon: string | null;
  /** Zulip 10's group settings (levels 283-324; migration 053): JSON group-setting values, null the setting's default. */
  can_manage_group: string | null;
  can_join_group: string | null;
  can_add_members_group: string | null;
  can_leave_group: string | null;
  can_remove_members_group: string | null;
  /** Level 290: 1 once deactivated. */
  deactivated: Generated<number>;
  /** Level 292: who made the group and when (UNIX seconds); null for groups made before. */
  creator_id: number | null;
  date_created: number | null;
}
export type UserGroupRow = Selectable<UserGroupTable>;

/** A user's direct membership of a group (migration 020). */
export interface UserGroupMemberTable {
  group_id: number;
  user_id: number;
}

/** `subgroup_id` is a direct subgroup of `supergroup_id` (migration 037). */
export interface UserGroupSubgroupTable {
  supergroup_id: number;
  subgroup_id: number;
}

/** A custom profile field of an organization (migration 021); field_data is JSON text. */
export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: Generated<string>;
  field_type: number;
  field_data: Generated<string>;
  order: Generated<number>;
  /** 0/1 (migration 044, feature level 146). */
  display_in_profile_summary: Generated<number>;
  /** 0/1 (migration 044, feature level 244). */
  required: Generated<number>;
  /** 0/1 (migration 057, feature level 296): whether users may set their own value. */
  editable_by_user: Generated<number>;
}
export type ProfileFieldRow = Selectable<CustomProfileFieldTable>;

/** A user's value of a field (migration 021); rendered_value only for the types Zulip renders. */
export interface CustomProfileFieldValueTable {
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** An organization's linkifier (migration 024; Zulip's RealmFilter). */
export interface RealmFilterTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_format_string: string;
  /** Level 176's RFC 6570 template (migration 042); null for a linkifier made with url_format_string. */
  url_template: string | null;
  /** The order linkifiers apply in (level 202). */
  position: Generated<number>;
}

/** A code playground (migration 073; Zulip's RealmPlayground). */
export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  /** Level 196's RFC 6570 template with the one variable `code`. */
  url_template: string;
}

/** An uploaded file (migration 022); `path_id` is its storage key and URL tail. */
export interface AttachmentTable {
  id: Generated<number>;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  content_type: string;
  size: number;
  /** Seconds since the epoch. */
  create_time: number;
  /** An image's size in pixels (migration 050); null when not an image, unreadable, or uploaded before. */
  image_width: number | null;
  image_height: number | null;
}
export type AttachmentRow = Selectable<AttachmentTable>;

/** A resumable upload under way at /api/v1/tus (migration 057, feature level 295). */
export interface TusUploadTable {
  id: string;
  realm_id: number;
  user_id: number;
  file_name: string;
  content_type: string;
  length: number;
  received: Generated<number>;
  /** JSON array of the offsets of the stored pieces. */
  chunks: Generated<string>;
  /** The attachment's path id once the last byte arrived. */
  path_id: string | null;
  create_time: number;
}
export type TusUploadRow = Selectable<TusUploadTable>;

/** A message linking an uploaded file (migration 022). */
export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

/** A custom emoji (migration 023); flags 0/1. */
export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  author_id: number | null;
  file_name: string | null;
  is_animated: Generated<number>;
  deactivated: Generated<number>;
}
export type RealmEmojiRow = Selectable<RealmEmojiTable>;

/** A web sign-in (migration 029): the cookie's id is never stored, only its SHA-256 (hex). */
export interface SessionTable {
  id_hash: string;
  user_id: number;
  realm_id: number;
  csrf_token: string;
  created: number;
  expires: number;
  last_seen: number;
}
export type SessionRow = Selectable<SessionTable>;

/**
 * A short-lived secret of single sign-on (migration 069): a flow begun and not yet finished,
 * a desktop app's one-time login token, or a SAML assertion already used. Only the
 * secret's SHA-256 is stored; `data` is JSON.
 */
export interface SsoTokenTable {
  id_hash: string;
  purpose: string;
  realm_id: number;
  data: string;
  expires: number;
}
export type SsoTokenRow = Selectable<SsoTokenTable>;

/**
 * A background job's lease (migration 070, src/jobs/scheduler.ts): `holder` is the node
 * running it (null between runs); `expires`, in milliseconds, when that lease lapses or,
 * between runs, when the job is next due.
 */
export interface JobLeaseTable {
  name: string;
  holder: string | null;
  expires: number;
}
export type JobLeaseRow = Selectable<JobLeaseTable>;

/** An invitation (migration 033): by email (works once) or a reusable link. `stream_ids`: JSON list. */
export interface InviteTable {
  id: Generated<number>;
  realm_id: number;
  is_multiuse: number;
  email: string | null;
  invited_as: number;
  referred_by: number;
  invited_at: number;
  expires: number | null;
  confirmation_key: string;
  status: Generated<number>;
  stream_ids: string;
  /** 0/1, or null: made below feature level 261 without it (migration 044). */
  include_realm_default_subscriptions: number | null;
  /** 0/1 (migration 044, feature level 267). */
  notify_referrer_on_join: Generated<number>;
  /** JSON array of user group ids the invited user joins (migration 057, feature level 322). */
  group_ids: Generated<string>;
}
export type InviteRow = Selectable<InviteTable>;

/** A mobile device's push token (migration 036): `kind` 1 APNs, 2 FCM; `ios_app_id` for APNs. */
export interface PushDeviceTable {
  id: Generated<number>;
  user_id: number;
  kind: number;
  token: string;
  ios_app_id: string | null;
  last_updated: number;
}
export type PushDeviceRow = Selectable<PushDeviceTable>;

/** The weekly digest per user (migration 064): when the last went out, a node's lease while it builds one, when one was last found empty. */
export interface DigestStateTable {
  user_id: number;
  last_sent: number | null;
  claimed_until: number | null;
  last_checked: Generated<number | null>;
}

/** This server's registration with Zulip's push notification service (migration 063): one row, id 1. */
export interface PushServerTable {
  id: number;
  zulip_org_id: string;
  zulip_org_key: string;
  /** When the service last accepted the registration; null until it has. */
  registered_at: number | null;
  /** When a node last queued the server data upload (migration 066). */
  analytics_queued_at: Generated<number | null>;
}

/** What the push notification service last answered for an organization (migration 066). */
export interface PushRealmTable {
  realm_id: number;
  /** Zulip's can_push: 1 or 0. */
  can_push: number;
  /** Zulip's expected_end_timestamp: when the service's plan ends; null: none announced. */
  end_timestamp: number | null;
}

/** A call to the push notification service still to make (migration 063). */
export interface PushOutboxTable {
  id: Generated<number>;
  /** The service's endpoint under /api/v1/remotes/: `push/notify`, `push/register`, ... */
  endpoint: string;
  /** JSON: `{form}` (form-encoded fields) or `{json}` (a JSON body). */
  body: string;
  due: number;
  /** While a node is making the call; null or past: free. */
  lease_until: number | null;
  attempts: Generated<number>;
  created: number;
}
export type PushOutboxRow = Selectable<PushOutboxTable>;

/** A message whose push a user's phones may still show (Zulip's active_mobile_push_notification; migration 063). */
export interface PushActiveTable {
  user_id: number;
  message_id: number;
}

/** The decider's place (migration 062): one row, the last message decided and the deciding node's lease. */
export interface NotificationCursorTable {
  id: number;
  last_message_id: number;
  leased_by: string | null;
  leased_until: number | null;
}

/** A notification due to a user who was away (migration 062): `kind` 'email' or 'push'; times UNIX seconds. */
export interface MissedMessageNotificationTable {
  id: Generated<number>;
  user_id: number;
  message_id: number;
  kind: string;
  trigger: string;
  mentioned_user_group_id: number | null;
  /** When it may be sent (again, after a failure). */
  due: number;
  claimed_until: number | null;
  attempts: Generated<number>;
  /** When it was first due: a notification still failing a day later is given up. */
  first_due: number;
}

/** One batch of archived messages (migration 072; Zulip's ArchiveTransaction): type 1 retention, 2 manual; restored 0/1. */
export interface ArchiveTransactionTable {
  id: Generated<number>;
  timestamp: number;
  type: number;
  realm_id: number | null;
  restored: Generated<number>;
}

/** A message in the archive: the message row as it was, and its batch. */
export interface ArchivedMessageTable extends Omit<MessageTable, 'id'> {
  id: number;
  archive_transaction_id: number;
}

export interface ArchivedUserMessageTable extends UserMessageTable {
  archive_transaction_id: number;
}

export interface ArchivedReactionTable extends Omit<ReactionTable, 'id'> {
  id: number;
  archive_transaction_id: number;
}

export interface ArchivedAttachmentMessageTable extends AttachmentMessageTable {
  archive_transaction_id: number;
}

export interface DB {
  realm: RealmTable;
  users: UserTable;
  recipient: RecipientTable;
  huddle: HuddleTable;
  stream: StreamTable;
  subscription: SubscriptionTable;
  default_stream: DefaultStreamTable;
  user_topic: UserTopicTable;
  message: MessageTable;
  user_message: UserMessageTable;
  reaction: ReactionTable;
  alert_word: AlertWordTable;
  user_presence: UserPresenceTable;
  user_activity: UserActivityTable;
  idle_mark: IdleMarkTable;
  presence_sequence: PresenceSequenceTable;
  cache_epoch: CacheEpochTable;
  email_change: EmailChangeTable;
  draft: DraftTable;
  scheduled_message: ScheduledMessageTable;
  saved_snippet: SavedSnippetTable;
  user_status: UserStatusTable;
  muted_user: MutedUserTable;
  user_group: UserGroupTable;
  user_group_member: UserGroupMemberTable;
  user_group_subgroup: UserGroupSubgroupTable;
  custom_profile_field: CustomProfileFieldTable;
  custom_profile_field_value: CustomProfileFieldValueTable;
  realm_filter: RealmFilterTable;
  realm_playground: RealmPlaygroundTable;
  attachment: AttachmentTable;
  attachment_message: AttachmentMessageTable;
  tus_upload: TusUploadTable;
  realm_emoji: RealmEmojiTable;
  bot_service: BotServiceTable;
  bot_storage: BotStorageTable;
  session: SessionTable;
  invite: InviteTable;
  push_device: PushDeviceTable;
  digest_state: DigestStateTable;
  push_server: PushServerTable;
  push_outbox: PushOutboxTable;
  push_active: PushActiveTable;
  notification_cursor: NotificationCursorTable;
  missed_message_notification: MissedMessageNotificationTable;
  push_realm: PushRealmTable;
  sso_token: SsoTokenTable;
  job_lease: JobLeaseTable;
  archive_transaction: ArchiveTransactionTable;
  archived_message: ArchivedMessageTable;
  archived_user_message: ArchivedUserMessageTable;
  archived_reaction: ArchivedReactionTable;
  archived_attachment_message: ArchivedAttachmentMessageTable;
}
