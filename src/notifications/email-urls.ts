/**
 * Zulip's narrow URLs for notification email (zerver/lib/url_encoding.py). Zulip 9 renamed
 * streams to channels and writes `#narrow/channel/...` and `#narrow/dm/...`; before that
 * its links were `#narrow/stream/...` and `#narrow/pm-with/...` (a one-to-one conversation
 * named by the sender's email's local part). A server answers at its feature level.
 */
import { hashEncode } from '../markdown/html.js';

/** Zulip 9.0's first level (the stream to channel rename). */
export const CHANNEL_URL_LEVEL = 255;

const channelSlug = (id: number, name: string) => `${id}-${hashEncode(name.replace(/ /g, '-'))}`;

export function streamNarrowUrl(realmUrl: string, level: number, stream: { id: number; name: string }): string {
  return `${realmUrl}/#narrow/${level >= CHANNEL_URL_LEVEL ? 'channel' : 'stream'}/${channelSlug(stream.id, stream.name)}`;
}

export function topicNarrowUrl(realmUrl: string, level: number, stream: { id: number; name: string }, topic: string): string {
  return `${streamNarrowUrl(realmUrl, level, stream)}/topic/${hashEncode(topic)}`;
}

export function personalNarrowUrl(realmUrl: string, level: number, sender: { id: number; full_name: string; email: string }): string {
  if (level >= CHANNEL_URL_LEVEL) {
    // Zulip's encode_user_full_name_and_id: runs of spaces, quotes, %, /, <, >, ` and control characters become '-'.
    return `${realmUrl}/#narrow/dm/${sender.id}-${sender.full_name.trim().replace(/[ "%/<>`\u0000-\u001f\u007f-\u009f]+/g, '-')}`;
  }
  return `${realmUrl}/#narrow/pm-with/${sender.id}-${hashEncode(sender.email.split('@')[0]!.toLowerCase())}`;
}

export function groupNarrowUrl(realmUrl: string, level: number, otherUserIds: number[]): string {
  const slug = `${[...otherUserIds].sort((a, b) => a - b).join(',')}-group`;
  return `${realmUrl}/#narrow/${level >= CHANNEL_URL_LEVEL ? 'dm' : 'pm-with'}/${slug}`;
}
