import type { NotificationTrigger } from './triggers.js';
import { mobilePushContent, truncateContent } from './push-content.js';

/**
 * The payloads of Zulip's push notifications (zerver/lib/push_notifications.py:
 * get_base_payload, get_message_payload, get_message_payload_apns, get_message_payload_gcm,
 * get_remove_payload_*), which the service hands to FCM and APNs and the Zulip apps read
 * (zulip-flutter lib/api/notifications.dart).
 */

/** Who a push is for: get_base_payload's fields. */
export interface PushRecipient {
  /** The server's host (Zulip's EXTERNAL_HOST). */
  server: string;
  realmId: number;
  realmUrl: string;
  realmName: string;
  userId: number;
  /** The reported feature level: `realm_url` joins `realm_uri` from 257, as in Zulip 9. */
  featureLevel: number;
}

export interface PushMessage {
  id: number;
  senderId: number;
  senderEmail: string;
  senderFullName: string;
  senderAvatarUrl: string;
  /** Unix seconds. */
  time: number;
  renderedContent: string;
  /** The server hides message content from pushes (PARLEY_PUSH_REDACT_CONTENT, Zulip's PUSH_NOTIFICATION_REDACT_CONTENT). */
  redacted?: boolean;
  /** A stream message's stream and topic (the topic as displayed: the empty one is "general chat"). */
  stream?: { id: number; name: string; topic: string };
  /** A direct message's participants, the recipient included (one for a message to oneself). */
  dm?: Array<{ id: number; fullName: string }>;
  trigger: NotificationTrigger;
  mentionedGroup?: { id: number; name: string };
}

/** Zulip's Realm.DEFAULT_EMPTY_TOPIC_DISPLAY_NAME, what get_topic_display_name shows for the empty topic. */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

export type Json = Record<string, unknown>;

export function basePayload(to: PushRecipient): Json {
  return {
    server: to.server,
    realm_id: to.realmId,
    realm_uri: to.realmUrl,
    ...(to.featureLevel >= 257 ? { realm_url: to.realmUrl } : {}),
    realm_name: to.realmName,
    user_id: to.userId,
  };
}

const isGroupDm = (m: PushMessage) => m.dm !== undefined && m.dm.length > 2;

/** get_message_payload: the fields common to both platforms. */
function messagePayload(to: PushRecipient, m: PushMessage): Json {
  const data = basePayload(to);
  data.sender_id = m.senderId;
  data.sender_email = m.senderEmail;
  data.time = m.time;
  if (m.mentionedGroup) {
    data.mentioned_user_group_id = m.mentionedGroup.id;
    data.mentioned_user_group_name = m.mentionedGroup.name;
  }
  if (m.stream) {
    data.recipient_type = 'stream';
    data.stream = m.stream.name;
    data.stream_id = m.stream.id;
    data.topic = m.stream.topic;
  } else {
    data.recipient_type = 'private';
    // Zulip's direct_message_group_users: the member ids, sorted, comma-separated.
    if (isGroupDm(m)) data.pm_users = m.dm!.map((u) => u.id).sort((a, b) => a - b).join(',');
  }
  return data;
}

function content(m: PushMessage): { content: string; truncated: boolean } {
  // Zulip's words when its PUSH_NOTIFICATION_REDACT_CONTENT keeps content off Apple's and Google's servers.
  if (m.redacted) return { content: 'New message', truncated: false };
  return truncateContent(mobilePushContent(m.renderedContent));
}

/** get_apns_alert_title: the first bold line on iOS. */
function apnsTitle(m: PushMessage): string {
  if (isGroupDm(m)) return m.dm!.map((u) => u.fullName).sort().join(', ');
  if (m.stream) return `#${m.stream.name} > ${m.stream.topic}`;
  return m.senderFullName;
}

const WILDCARD_TRIGGERS: ReadonlySet<NotificationTrigger> = new Set([
  'topic_wildcard_mentioned_in_followed_topic', 'stream_wildcard_mentioned_in_followed_topic',
  'topic_wildcard_mentioned', 'stream_wildcard_mentioned',
]);

/** get_apns_alert_subtitle: the second bold line on iOS. */
function apnsSubtitle(m: PushMessage): string {
  if (m.trigger === 'mentioned') {
    return m.mentionedGroup ? `${m.senderFullName} mentioned @${m.mentionedGroup.name}:` : `${m.senderFullName} mentioned you:`;
  }
  if (WILDCARD_TRIGGERS.has(m.trigger)) return `${m.senderFullName} mentioned everyone:`;
  if (m.dm && !isGroupDm(m)) return '';
  return `${m.senderFullName}:`;
}

/**
 * get_message_payload_apns. The badge is 0 as in Zulip, which has set it so (its
 * get_apns_badge_count) until the apps handle a count while open.
 */
export function messagePayloadApns(to: PushRecipient, m: PushMessage): Json {
  const zulip = { ...messagePayload(to, m), message_ids: [m.id] };
  return {
    alert: { title: apnsTitle(m), subtitle: apnsSubtitle(m), body: content(m).content },
    sound: 'default',
    badge: 0,
    custom: { zulip },
  };
}

/** get_message_payload_gcm: the data and options; every message push is high priority. */
export function messagePayloadGcm(to: PushRecipient, m: PushMessage): { payload: Json; options: Json } {
  const c = content(m);
  const payload = {
    ...messagePayload(to, m),
    event: 'message',
    // FCM reserves message_id.
    zulip_message_id: m.id,
    content: c.content,
    content_truncated: c.truncated,
    sender_full_name: m.senderFullName,
    sender_avatar_url: m.senderAvatarUrl,
  };
  return { payload, options: { priority: 'high' } };
}

/** Zulip's MAX_APNS_MESSAGE_IDS: the newest 200 ids fit APNs' 4 KB. */
export const MAX_REMOVE_IDS = 200;

/** get_remove_payload_gcm and get_remove_payload_apns, for the newest MAX_REMOVE_IDS of `messageIds`. */
export function removePayloads(to: PushRecipient, messageIds: number[]): { gcm: Json; gcmOptions: Json; apns: Json } {
  const ids = [...messageIds].sort((a, b) => a - b).slice(-MAX_REMOVE_IDS);
  const joined = ids.join(',');
  return {
    // zulip_message_id for apps from before 2019, which read only the first.
    gcm: { ...basePayload(to), event: 'remove', zulip_message_ids: joined, zulip_message_id: ids[0] },
    gcmOptions: { priority: 'normal' },
    apns: { badge: 0, custom: { zulip: { ...basePayload(to), event: 'remove', zulip_message_ids: joined } } },
  };
}
