import { emojiCodeForName, nameForCode } from './index.js';
import {
  customEmojiDeactivated, emojiDoesNotExist, invalidCustomEmoji, invalidCustomEmojiName, invalidEmojiCode, invalidEmojiName, invalidEmojiType,
} from '../errors.js';

/**
 * Which emoji a reaction (or a status) names: Zulip's get_emoji_data and
 * check_emoji_request (zerver/lib/emoji.py), with the organization's custom emoji passed
 * in, so that these stay pure and the caller decides how to load them.
 */
export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';

/** Zulip names the extra-emoji namespace `zulip_extra_emoji`; Parley's spec says `service_extra_emoji`. Both are read. */
// A Map, not an object literal: a request's `constructor` must not find Object's.
const TYPE_ALIASES = new Map([['zulip_extra_emoji', 'service_extra_emoji']]);
export const normalizeReactionType = (t: string): string => TYPE_ALIASES.get(t) ?? t;

/** The one emoji shipped with the service itself (Zulip's "zulip"); its code is its name. */
const EXTRA_EMOJI = new Set(['zulip']);

export interface CustomEmoji { id: string; name: string; deactivated: boolean }

/** An organization's custom emoji, loaded by the caller (src/actions/reactions.ts customEmojiOf). */
export interface CustomEmojiSet {
  /** An active custom emoji by name. */
  activeByName(name: string): CustomEmoji | undefined;
  /** Any custom emoji, deactivated too, by its id (the emoji_code of a realm_emoji reaction). */
  byId(id: string): CustomEmoji | undefined;
}
export const NO_CUSTOM_EMOJI: CustomEmojiSet = { activeByName: () => undefined, byId: () => undefined };

/** The code and namespace a name stands for today: custom emoji first, then the extra emoji, then unicode. */
export function emojiDataForName(custom: CustomEmojiSet, name: string): { emojiCode: string; reactionType: ReactionType } {
  const c = custom.activeByName(name);
  if (c) return { emojiCode: c.id, reactionType: 'realm_emoji' };
  if (EXTRA_EMOJI.has(name)) return { emojiCode: name, reactionType: 'service_extra_emoji' };
  const code = emojiCodeForName(name);
  if (code !== undefined) return { emojiCode: code, reactionType: 'unicode_emoji' };
  throw emojiDoesNotExist(name);
}

/** Whether `code` names any emoji of the namespace `type` (today's mapping). */
export function isKnownEmojiCode(custom: CustomEmojiSet, code: string, type: string): boolean {
  switch (normalizeReactionType(type)) {
    case 'realm_emoji': return custom.byId(code) !== undefined;
    case 'service_extra_emoji': return EXTRA_EMOJI.has(code);
    case 'unicode_emoji': return nameForCode(code) !== undefined;
    default: return false;
  }
}

/** Whether (name, code, type) names an emoji a new reaction may use; throws Zulip's error if not. */
export function checkEmojiRequest(custom: CustomEmojiSet, name: string, code: string, type: string): void {
  switch (normalizeReactionType(type)) {
    case 'realm_emoji': {
      const c = custom.byId(code);
      if (!c) throw invalidCustomEmoji();
      if (c.name !== name) throw invalidCustomEmojiName();
      if (c.deactivated) throw customEmojiDeactivated();
      return;
    }
    case 'service_extra_emoji':
      if (!EXTRA_EMOJI.has(code)) throw invalidEmojiCode();
      if (name !== code) throw invalidEmojiName();
      return;
    case 'unicode_emoji':
      if (nameForCode(code) === undefined) throw invalidEmojiCode();
      if (emojiCodeForName(name) !== code) throw invalidEmojiName();
      return;
    default:
      throw invalidEmojiType();
  }
}
