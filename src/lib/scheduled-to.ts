/**
 * A scheduled message's `to` as Zulip 7's extract_stream_id and
 * extract_direct_message_recipient_ids read it: a stream's id as decimal text; people as a
 * JSON list of user ids. Answers the ids, or the message of the error to raise.
 */
export function parseScheduledTo(kind: 'stream' | 'private', raw: string): number[] | string {
  if (kind === 'stream') {
    // Python's int(): surrounding whitespace and a sign are allowed.
    return /^\s*[+-]?\d+\s*$/.test(raw) ? [Number(raw.trim())] : 'Invalid data type for stream ID';
  }
  let v: unknown = raw;
  try {
    v = JSON.parse(raw);
  } catch {
    /* not JSON: the raw text, which is no list */
  }
  if (!Array.isArray(v)) return 'Invalid data type for recipients';
  if (!v.every((x) => typeof x === 'number' && Number.isInteger(x))) return 'Recipient list may only contain user IDs';
  return [...new Set(v as number[])];
}
