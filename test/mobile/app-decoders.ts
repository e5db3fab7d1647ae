/**
 * Zulip's phone app (zulip-flutter) decodes every answer and event with generated decoders
 * that throw on a missing key, a wrong type or (for most enumerations) an unknown value, and
 * one event it cannot decode fails the whole poll. test/fixtures/zulip-flutter/decoders.json
 * says what each decoder needs (extracted from the app by extract.ts there); `decode` checks a
 * value against it and answers every problem found, as "Class.key: what".
 */
import { readFileSync } from 'node:fs';
import type { Decoders, Type } from '../fixtures/zulip-flutter/types.js';


const D = JSON.parse(readFileSync(new URL('../fixtures/zulip-flutter/decoders.json', import.meta.url), 'utf8')) as Decoders;

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The app's hand-written decoding (its .dart files, not generated): what the generated part
 * leaves to a helper. Each answers problems like `decode`.
 */
const HANDWRITTEN: Record<string, (v: Record<string, Json>, at: string) => string[]> = {
  // Message.fromJson: a stream message or a direct one, by `type`; reactions are Reaction objects.
  Message: (v, at) => {
    const cls = v.type === 'stream' ? 'StreamMessage' : v.type === 'private' ? 'DmMessage' : undefined;
    if (!cls) return [`${at}.type: ${JSON.stringify(v.type)} is neither stream nor private`];
    const problems = decodeClass(cls, v, at);
    if (!Array.isArray(v.reactions)) problems.push(`${at}.reactions: not a list`);
    else v.reactions.forEach((r, i) => problems.push(...decodeType({ t: 'class', name: 'Reaction' }, r, `${at}.reactions[${i}]`)));
    if (cls === 'StreamMessage' && typeof v.stream_id !== 'number') problems.push(`${at}.stream_id: missing`);
    if (cls === 'StreamMessage' && typeof v.subject !== 'string') problems.push(`${at}.subject: missing`);
    if (cls === 'DmMessage' && !Array.isArray(v.display_recipient)) problems.push(`${at}.display_recipient: not a list`);
    if (typeof v.last_edit_timestamp === 'number' && !Number.isInteger(v.last_edit_timestamp)) problems.push(`${at}.last_edit_timestamp: not an integer`);
    return problems;
  },
  // The event's flags are the message's (MessageEvent._readMessageValue).
  MessageEvent: (v, at) => [...decodeClass('MessageEvent', v, at),
    ...(isObject(v.message) ? HANDWRITTEN.Message!({ ...v.message, flags: v.flags }, `${at}.message`) : [`${at}.message: missing`])],
  TypingEvent: (v, at) => {
    const problems = decodeClass('TypingEvent', v, at);
    if (!isObject(v.sender) || typeof v.sender.user_id !== 'number') problems.push(`${at}.sender.user_id: missing`);
    if (v.recipients != null && !(Array.isArray(v.recipients) && v.recipients.every((r) => isObject(r) && typeof r.user_id === 'number'))) problems.push(`${at}.recipients: not a list of {user_id}`);
    if (!['stream', 'private', 'direct'].includes(v.message_type as string)) problems.push(`${at}.message_type: ${JSON.stringify(v.message_type)}`);
    return problems;
  },
  GetMessagesResult: (v, at) => [...decodeClass('GetMessagesResult', v, at),
    ...(Array.isArray(v.messages) ? v.messages.flatMap((m, i) => (isObject(m) ? HANDWRITTEN.Message!(m, `${at}.messages[${i}]`) : [`${at}.messages[${i}]: not an object`])) : [`${at}.messages: not a list`])],
  GetMessageResult: (v, at) => [...decodeClass('GetMessageResult', v, at), ...(isObject(v.message) ? HANDWRITTEN.Message!(v.message, `${at}.message`) : [`${at}.message: missing`])],
  // RealmUserUpdateEvent reads its fields out of `person`, of which it needs the user id.
  RealmUserUpdateEvent: (v, at) => {
    if (!isObject(v.person)) return [`${at}.person: missing`];
    const problems = typeof v.person.user_id === 'number' ? [] : [`${at}.person.user_id: missing`];
    if ('role' in v.person && !D.enums.UserRole!.includes(v.person.role as number)) problems.push(`${at}.person.role: ${JSON.stringify(v.person.role)}`);
    if ('is_active' in v.person && typeof v.person.is_active !== 'boolean') problems.push(`${at}.person.is_active: not a boolean`);
    return problems;
  },
  ChannelDeleteEvent: (v, at) => (Array.isArray(v.stream_ids) || (Array.isArray(v.streams) && v.streams.every((s) => isObject(s) && typeof s.stream_id === 'number'))
    ? [] : [`${at}: neither stream_ids nor streams[].stream_id`]),
  SubscriptionRemoveEvent: (v, at) => (Array.isArray(v.subscriptions) && v.subscriptions.every((s) => isObject(s) && typeof s.stream_id === 'number')
    ? [] : [`${at}.subscriptions[].stream_id: missing`]),
  // The notification properties are booleans, never null (the app's SubscriptionUpdateEvent).
  SubscriptionUpdateEvent: (v, at) => {
    const problems = decodeClass('SubscriptionUpdateEvent', v, at);
    const boolProps = ['is_muted', 'in_home_view', 'pin_to_top', 'desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify'];
    if (boolProps.includes(v.property as string) && typeof v.value !== 'boolean') problems.push(`${at}.value: ${JSON.stringify(v.value)} for ${String(v.property)}`);
    if (v.property === 'color' && typeof v.value !== 'string') problems.push(`${at}.value: color not a string`);
    return problems;
  },
};

/**
 * GroupSettingValue.fromJson (model.dart, hand-written sealed class): an int is a named group's
 * id, an object is an anonymous group (GroupSettingValueNameless); anything else throws.
 */
function groupSettingValue(v: Json, at: string): string[] {
  if (Number.isInteger(v)) return [];
  if (isObject(v)) return decodeClass('GroupSettingValueNameless', v, at);
  return [`${at}: neither a group id nor {direct_members, direct_subgroups}`];
}

export function decodeClass(name: string, v: Json, at = name): string[] {
  if (!isObject(v)) return [`${at}: not an object`];
  const fields = D.classes[name];
  if (!fields) return [];
  const problems: string[] = [];
  for (const f of fields) {
    const present = Object.hasOwn(v, f.key) && v[f.key] !== null;
    if (!present) {
      if (f.required) problems.push(`${at}.${f.key}: missing`);
      continue;
    }
    problems.push(...decodeType(f.type, v[f.key], `${at}.${f.key}`));
  }
  return problems;
}

function decodeType(type: Type, v: Json, at: string): string[] {
  switch (type.t) {
    case 'any': return [];
    case 'string': return typeof v === 'string' ? [] : [`${at}: not a string`];
    case 'bool': return typeof v === 'boolean' ? [] : [`${at}: not a boolean`];
    case 'int': return Number.isInteger(v) ? [] : [`${at}: not an integer`];
    case 'num': return typeof v === 'number' ? [] : [`${at}: not a number`];
    case 'object': return isObject(v) ? [] : [`${at}: not an object`];
    case 'class': if (type.name === 'GroupSettingValue') return groupSettingValue(v, at);
      return HANDWRITTEN[type.name] ? (isObject(v) ? HANDWRITTEN[type.name]!(v, at) : [`${at}: not an object`]) : decodeClass(type.name, v, at);
    case 'enum': {
      if (!type.strict) return [];
      const values = D.enums[type.name] ?? [];
      return values.includes(v as string | number) ? [] : [`${at}: ${JSON.stringify(v)} is not a ${type.name}`];
    }
    case 'list': return Array.isArray(v) ? v.flatMap((item, i) => decodeType(type.of, item, `${at}[${i}]`)) : [`${at}: not a list`];
    case 'map': return isObject(v) ? Object.entries(v).flatMap(([k, item]) => decodeType(type.of, item, `${at}[${k}]`)) : [`${at}: not an object`];
  }
}

/** What the app makes of an answer decoded by `cls` (handwritten rules first). */
export function decode(cls: string, v: Json): string[] {
  const hand = HANDWRITTEN[cls];
  if (hand) return isObject(v) ? hand(v, cls) : [`${cls}: not an object`];
  return decodeClass(cls, v);
}

/** An event as Event.fromJson dispatches it; kinds the app does not know are harmless (UnexpectedEvent). */
export function decodeEvent(e: Record<string, Json>): string[] {
  const cls = D.events[`${String(e.type)}/${String(e.op)}`] ?? D.events[String(e.type)];
  if (!cls) return [];
  return decode(cls, e).map((p) => p.replace(cls, `${cls}(${String(e.type)}${e.op ? `/${String(e.op)}` : ''})`));
}

export const appDecoders = D;
