export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function emojiSpan(name: string, code: string): string {
  const label = escapeHtml(name.replace(/_/g, ' '));
  return `<span aria-label="${label}" class="emoji emoji-${code}" role="img" title="${label}">:${escapeHtml(name)}:</span>`;
}

/** Zulip's hash encoding for narrow URLs: percent-encoding with '.' for '%'. */
export function hashEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E').replace(/%/g, '.');
}

export function narrowHref(streamId: number, streamName: string, topic?: string): string {
  const stream = `/#narrow/stream/${streamId}-${hashEncode(streamName.replace(/ /g, '-'))}`;
  return topic === undefined ? stream : `${stream}/topic/${hashEncode(topic)}`;
}

/** Zulip's make_realm_emoji: the title spells the name with spaces. */
export function customEmojiImg(name: string, src: string): string {
  return `<img alt=":${escapeHtml(name)}:" class="emoji" src="${escapeHtml(src)}" title="${escapeHtml(name.replace(/_/g, ' '))}">`;
}
