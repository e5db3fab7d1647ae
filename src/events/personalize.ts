import type { ParleyEvent } from './types.js';
import type { EventQueue } from './queue.js';
import type { InternalMessage } from '../narrow/types.js';
import { matchesNarrow } from '../narrow/match.js';
import { FLAG_BITS } from '../lib/message-flags.js';
import { presentLinkifiers } from '../presenters/linkifier.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/empty-topic.js';

type Ev = Record<string, unknown> & { type: string };

const FLAG_MASK: Record<string, number> = FLAG_BITS;
/** What a subscriber without a row of an edited message is told its flags are, as Zulip. */
const READ_ONLY = ['read'];

function maskOf(flags: string[] | undefined): number | null {
  if (!flags) return null;
  return flags.reduce((m, f) => m | (FLAG_MASK[f] ?? 0), 0);
}

/** The narrow predicate's view of a message event. */
export function internalFromWire(message: Record<string, unknown>, rawContent: string): InternalMessage {
  const html = String(message.content ?? '');
  const isStream = message.type === 'stream';
  return {
    id: Number(message.id),
    sender_id: Number(message.sender_id),
    stream_id: isStream ? Number(message.stream_id) : null,
    topic: String(message.subject ?? ''),
    pm_user_ids: isStream ? [] : (message.display_recipient as Array<{ id: number }>).map((u) => u.id),
    content: rawContent,
    has_link: /<a\s/.test(html),
    has_image: /<a\s[^>]*href="[^"]+\.(png|jpe?g|gif|webp|bmp|svg|tiff?)(\?[^"]*)?"/i.test(html),
    has_attachment: html.includes('/user_uploads/'),
    has_reaction: Array.isArray(message.reactions) && message.reactions.length > 0,
  };
}

/**
 * What each queue receives for one published event, serialised: the message event shaped
 * by the queue's apply_markdown, client_gravatar, narrow and local echo; capability-
 * dependent events in the form the client declared it understands. Queues that would
 * receive the same shape share one serialisation: a message to a busy stream is turned
 * into JSON a handful of times, not once per listening queue.
 */
export class Personalizer {
  private shapes = new Map<string, string[]>();
  private internal: InternalMessage | undefined;

  constructor(private event: ParleyEvent) {}

  for(queue: EventQueue, userId: number, viaPublicStream: boolean): string[] {
    const s = queue.state;
    const event = this.event;
    let key: string;
    if (event.type === 'message') {
      const flags = viaPublicStream ? undefined : (event.flags_by_user as Record<number, string[]>)[userId];
      if (s.narrow.length > 0) {
        this.internal ??= internalFromWire(event.message as Record<string, unknown>, String(event.raw_content));
        if (!matchesNarrow(s.narrow, this.internal, maskOf(flags))) return [];
      }
      const echo = event.sender_queue_id === s.id && event.local_id !== undefined;
      const receiver = event.receiver_recipient_id !== undefined && userId !== event.message.sender_id;
      key = `${flags === undefined ? '*' : flags.length === 0 ? '' : flags.join(',')}|${s.applyMarkdown ? 1 : 0}${s.clientGravatar ? 1 : 0}|${echo ? s.id : ''}|${receiver ? 1 : 0}`;
    } else if (event.type === 'update_message') {
      key = (event.flags_by_user[userId] ?? READ_ONLY).join(',');
    } else {
      const c = s.capabilities;
      key = `${c.bulk_message_deletion ? 1 : 0}${c.stream_typing_notifications ? 1 : 0}${c.user_settings_object ? 1 : 0}${c.linkifier_url_template ? 1 : 0}${c.linkifiers_withheld ? 1 : 0}${c.include_deactivated_groups ? 1 : 0}`;
    }
    key += s.capabilities.empty_topic_name === true ? '|e' : '|n';
    let out = this.shapes.get(key);
    if (!out) {
      const shaped = personalize(queue, userId, event, viaPublicStream);
      out = (s.capabilities.empty_topic_name === true ? shaped : shaped.map(nameEmptyTopic)).map((e) => JSON.stringify(e));
      this.shapes.set(key, out);
    }
    return out;
  }
}

/** One queue's view of one event, as objects (the narrow is checked by the caller). */
function personalize(queue: EventQueue, userId: number, event: ParleyEvent, viaPublicStream: boolean): Ev[] {
  const s = queue.state;
  if (event.type === 'message') {
    const flags = viaPublicStream ? undefined : (event.flags_by_user as Record<string, string[]>)[String(userId)];
    const shaped: Record<string, unknown> = { ...(event.message as Record<string, unknown>) };
    if (!s.applyMarkdown) {
      shaped.content = event.raw_content;
      shaped.content_type = 'text/x-markdown';
    }
    if (s.clientGravatar && event.sender_avatar_source === 'G') shaped.avatar_url = null;
    if (event.receiver_recipient_id !== undefined && userId !== event.message.sender_id) shaped.recipient_id = event.receiver_recipient_id;
    // A listener to all public streams that was not sent the message gets no flags, as in Zulip.
    const out: Ev = { type: 'message', message: shaped, flags: flags ?? [] };
    if (event.sender_queue_id === s.id && event.local_id !== undefined) out.local_message_id = event.local_id;
    return [out];
  }
  if (event.type === 'update_message') {
    // Zulip's tornado gives each recipient their own flags on the message.
    const { flags_by_user: flagsByUser, ...rest } = event;
    return [{ ...rest, flags: flagsByUser[userId] ?? READ_ONLY }];
  }
  if (event.type === 'delete_message' && !s.capabilities.bulk_message_deletion && Array.isArray(event.message_ids)) {
    const { message_ids: ids, ...rest } = event;
    return (ids as number[]).map((message_id) => ({ ...rest, type: 'delete_message', message_id }));
  }
  if (event.type === 'typing' && event.message_type === 'stream' && !s.capabilities.stream_typing_notifications) return [];
  if (event.type === 'realm_linkifiers') {
    // Each queue the form its register gave: templates, nothing, or (level 122) format strings.
    if (s.capabilities.linkifiers_withheld) return [];
    const template = s.capabilities.linkifier_url_template === true;
    return [{ type: 'realm_linkifiers', realm_linkifiers: presentLinkifiers(event.realm_linkifiers, template) }];
  }
  if (event.type === 'realm_filters' && (s.capabilities.linkifiers_withheld || s.capabilities.linkifier_url_template)) return [];
  // A client that is not shown deactivated groups hears of a deactivation as of a deletion (Zulip, level 294).
  if (event.type === 'user_group' && event.op === 'update' && event.data.deactivated === true && !s.capabilities.include_deactivated_groups) {
    return [{ type: 'user_group', op: 'remove', group_id: event.group_id }];
  }
  const type: string = event.type;
  if ((type === 'update_display_settings' || type === 'update_global_notifications') && s.capabilities.user_settings_object) return [];
  return [{ ...event }];
}

const named = (topic: unknown): unknown => (topic === '' ? EMPTY_TOPIC_DISPLAY_NAME : topic);

/**
 * Level 334: for a client without the empty_topic_name capability, the empty topic of a
 * stream message goes by its display name in the fields Zulip lists (message `subject`,
 * delete_message and typing `topic`, update_message `subject`/`orig_subject`, user_topic
 * `topic_name`, the `topic` of update_message_flags' message_details) and in the recipient of
 * typing_edit_message (level 351). Private messages keep their "".
 */
function nameEmptyTopic(e: Ev): Ev {
  switch (e.type) {
    case 'message': {
      const m = e.message as Record<string, unknown>;
      return m.type === 'stream' && m.subject === '' ? { ...e, message: { ...m, subject: EMPTY_TOPIC_DISPLAY_NAME } } : e;
    }
    case 'delete_message':
    case 'typing':
      return e.topic === '' ? { ...e, topic: EMPTY_TOPIC_DISPLAY_NAME } : e;
    case 'update_message': {
      if (e.subject !== '' && e.orig_subject !== '') return e;
      const out: Ev = { ...e };
      if ('subject' in e) out.subject = named(e.subject);
      if ('orig_subject' in e) out.orig_subject = named(e.orig_subject);
      return out;
    }
    case 'user_topic':
      return e.topic_name === '' ? { ...e, topic_name: EMPTY_TOPIC_DISPLAY_NAME } : e;
    case 'update_message_flags': {
      const details = e.message_details as Record<string, Record<string, unknown>> | undefined;
      if (!details || !Object.values(details).some((d) => d.type === 'stream' && d.topic === '')) return e;
      const fixed = Object.fromEntries(Object.entries(details).map(([id, d]) => [id, d.type === 'stream' ? { ...d, topic: named(d.topic) } : d]));
      return { ...e, message_details: fixed };
    }
    case 'typing_edit_message': {
      const r = e.recipient as Record<string, unknown>;
      return r.type === 'channel' && r.topic === '' ? { ...e, recipient: { ...r, topic: EMPTY_TOPIC_DISPLAY_NAME } } : e;
    }
    default:
      return e;
  }
}
