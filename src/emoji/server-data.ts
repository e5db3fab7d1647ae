import { createHash } from 'node:crypto';
import { emojiCatalog } from './catalog.js';

/** Where the file lives: Zulip serves it among its static files, under a content-hashed name. */
export const SERVER_EMOJI_DATA_DIR = '/static/generated/emoji/';

let cached: { bytes: Buffer; name: string } | undefined;

/**
 * register's server_emoji_data_url file (feature level 140), Zulip's emoji_api.json: per
 * emoji code its names, canonical first, from the catalogue the picker and reactions use.
 * Serialised once; the name carries the content's hash, so clients may keep it for good.
 */
export function serverEmojiData(): { bytes: Buffer; name: string } {
  if (!cached) {
    const codeToNames = Object.fromEntries(emojiCatalog().emoji.map(([code, names]) => [code, names]));
    const bytes = Buffer.from(JSON.stringify({ code_to_names: codeToNames }));
    cached = { bytes, name: `emoji_api.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.json` };
  }
  return cached;
}
