/**
 * The wire objects the presenters make, as types only (no imports): register's state,
 * the events and the web app (web/src/types.ts) name them from here. Type aliases, not
 * interfaces, so that they stay assignable where a plain JSON dictionary is expected.
 * The strict shapes the event guard checks are in src/events/schemas.ts.
 */

/** A custom profile field's value on a user (presenters/profile-field.ts's WireProfileValue). */
export type WireProfileData = Record<string, { value: string; rendered_value?: string }>;

/** The User object of GET /users, register's realm_users and realm_user events (presentUser). */
export type WireUser = {
  user_id: number;
  email: string;
  full_name: string;
  avatar_url: string | null;
  avatar_version: number;
  date_joined: string;
  timezone: string;
  is_active: boolean;
  is_admin: boolean;
  is_owner: boolean;
  is_guest: boolean;
  is_billing_admin: boolean;
  is_bot: boolean;
  bot_type: number | null;
  role: number;
  bot_owner_id?: number | null;
  delivery_email?: string;
  profile_data?: WireProfileData;
};

/** An outgoing webhook bot's service (Zulip's get_service_dicts_for_bot). */
export type WireBotService = { base_url: string; interface: number; token: string };

/** The Bot object of register's realm_bots and realm_bot add events (presentBot). */
export type WireBot = {
  user_id: number;
  full_name: string;
  api_key: string;
  avatar_url: string | null;
  email: string;
  bot_type: number | null;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  is_active: boolean;
  owner_id: number | null;
  services: WireBotService[];
};

/** The Stream object of GET /streams, stream events and register's streams (presentStream). */
export type WireStream = {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  stream_post_policy: number;
  message_retention_days: number | null;
  date_created: number;
  first_message_id: number | null;
  is_announcement_only: boolean;
};

/** A subscription (presentSubscription): register's subscriptions and unsubscribed, subscription add events. */
export type WireSubscription = WireStream & {
  color: string;
  is_muted: boolean;
  in_home_view: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  role: number;
  email_address: string;
  stream_weekly_traffic: number | null;
  subscribers?: number[];
};

/** register's never_subscribed entries: the stream with its traffic and (when asked) its subscribers. */
export type WireNeverSubscribed = WireStream & { stream_weekly_traffic: number | null; subscribers?: number[] };

/** The short form of subscription remove events (presentStreamRef). */
export type WireStreamRef = { stream_id: number; name: string };

/** A person of a private message's display_recipient (presenters/message.ts's PmUser). */
export type WirePmUser = { id: number; email: string; full_name: string; is_mirror_dummy: boolean };

/** One entry of a message's reactions (presentReaction). */
export type WireReaction = {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
  user: WirePmUser;
};

/** The Message object of GET /messages and message events (presentMessage). */
export type WireMessageObject = {
  id: number;
  type: 'stream' | 'private';
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  avatar_url: string | null;
  client: string;
  content: string;
  content_type: string;
  display_recipient: string | WirePmUser[];
  recipient_id: number;
  subject: string;
  topic_links: Array<{ text: string; url: string }>;
  timestamp: number;
  is_me_message: boolean;
  reactions: WireReaction[];
  submessages: unknown[];
  stream_id?: number;
  flags?: string[];
  last_edit_timestamp?: number;
  edit_history?: unknown;
  match_content?: string;
  match_subject?: string;
};

/** One client's entry of a user's presence (presenters/presence.ts's ClientPresence). */
export type WireClientPresence = { client: string; status: 'active' | 'idle'; timestamp: number; pushable: boolean };

/** A user's status as register's user_status gives it (presenters/user-status.ts's UserStatusInfo). */
export type WireUserStatus = { away?: true; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string };
