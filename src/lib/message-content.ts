import { MAX_MESSAGE_BYTES } from './limits.js';

const TRUNCATED = '\n[message truncated]';

/**
 * Zulip's truncate_content for message bodies, by the bytes the message limit counts: past
 * MAX_MESSAGE_BYTES the body is cut on a character boundary (no codepoint split) and marked.
 * The one place the limit is applied: sends, edits, drafts and POST /messages/render.
 */
export function truncateContent(body: string): string {
  // A UTF-8 character is at most 4 bytes: a short string needs no byte count at all.
  if (body.length * 4 <= MAX_MESSAGE_BYTES || Buffer.byteLength(body) <= MAX_MESSAGE_BYTES) return body;
  const room = MAX_MESSAGE_BYTES - Buffer.byteLength(TRUNCATED);
  let cut = body.slice(0, room);
  while (Buffer.byteLength(cut) > room) cut = cut.slice(0, -1);
  return cut + TRUNCATED;
}
