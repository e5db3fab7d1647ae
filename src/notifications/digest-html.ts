import sanitizeHtml from 'sanitize-html';
import { narrowHref } from '../markdown/html.js';

/** Zulip's API renamed the `stream` narrow operator `channel` at level 250, and its links with it. */
const CHANNEL_NARROW_LEVEL = 250;

/** Zulip's stream_narrow_url / topic_narrow_url: absolute, with the operator the reported level writes. */
export function narrowUrl(realmUri: string, featureLevel: number, streamId: number, streamName: string, topic?: string): string {
  const href = narrowHref(streamId, streamName, topic);
  return realmUri + (featureLevel >= CHANNEL_NARROW_LEVEL ? href.replace('/#narrow/stream/', '/#narrow/channel/') : href);
}

function absolute(base: string, url: string | undefined): string {
  try {
    return new URL(url ?? '', `${base}/`).toString();
  } catch {
    return base;
  }
}

/**
 * A stored rendering as a mail client may show it: no scripts, styles, forms or event
 * attributes; links absolute on the organization's URL (Zulip's relative_to_full_url);
 * images as links to them, and the previews Parley adds below a message (inline images,
 * embeds) left out since the message's own link is there already.
 */
export function mailSafeHtml(rendered: string, realmUri: string): string {
  return sanitizeHtml(rendered, {
    allowedTags: sanitizeHtml.defaults.allowedTags,
    allowedAttributes: { a: ['href', 'title'], span: ['title'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    exclusiveFilter: (frame) => frame.tag === 'div' && /\b(message_inline_image|message_inline_ref|message_embed|youtube-video|embed-video)\b/.test(frame.attribs.class ?? ''),
    transformTags: {
      a: (_tag, attribs) => ({ tagName: 'a', attribs: { ...attribs, href: absolute(realmUri, attribs.href) } }),
      img: (_tag, attribs) => ({ tagName: 'a', attribs: { href: absolute(realmUri, attribs.src) }, text: attribs.alt || absolute(realmUri, attribs.src) }),
    },
  });
}
