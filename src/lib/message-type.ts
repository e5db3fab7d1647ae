/**
 * A message or typing `type` as clients send it: `stream` and `private`, or the later
 * names `channel` (Zulip 9.0) and `direct` (7.0). Anything else is not a type.
 */
export function messageKind(type: string): 'stream' | 'private' | undefined {
  if (type === 'stream' || type === 'channel') return 'stream';
  if (type === 'private' || type === 'direct') return 'private';
  return undefined;
}
