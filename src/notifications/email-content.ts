/**
 * A message's stored rendering made fit for a mail client, and its plain-text part, as
 * Zulip's build_message_list makes them (zerver/lib/email_notifications.py):
 * - links absolute against the organization's URL (`/user_uploads/...`, `#narrow/...`);
 * - inline image previews dropped (a mail client cannot fetch an upload without a
 *   session), a message that is only an image becomes a link to it, any other image a link;
 * - Unicode emoji spans become the characters themselves, custom emoji keep their image;
 * - math shows its TeX source;
 * - a spoiler shows its header and "(Open Zulip to see the spoiler content)", never the content;
 * - then only tags and attributes a mail client may render: no scripts, styles, forms or
 *   event handlers, only http(s) and mailto links (sanitize-html).
 */
import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '../markdown/html.js';

const SPOILER_TITLE = 'Open Zulip to see the spoiler content';

const ALLOWED_TAGS = [
  'p', 'br', 'div', 'span', 'a', 'img', 'b', 'strong', 'i', 'em', 'del', 's', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sub', 'sup',
  'time',
];

function absolute(url: string, realmUrl: string): string {
  if (/^\/?#narrow\//.test(url)) return `${realmUrl}/${url.replace(/^\//, '')}`;
  try {
    return new URL(url, `${realmUrl}/`).href;
  } catch {
    return url;
  }
}

const classesOf = (attribs: Record<string, string>) => (attribs.class ?? '').split(/\s+/);

/** The stored HTML of one message, safe and self-contained for an email. */
export function mailSafeHtml(rendered: string, realmUrl: string): string {
  const whole = /^\s*<div class="message_inline_image"><a href="([^"]*)"(?: title="([^"]*)")?>[\s\S]*<\/div>\s*$/.exec(rendered);
  let html = rendered;
  if (whole && !/<div/.test(rendered.slice(rendered.indexOf('>') + 1))) {
    // The whole message is one image: Zulip turns it into a link to the image.
    const title = whole[2] !== undefined ? ` title="${whole[2]}"` : '';
    html = `<p><a href="${whole[1]}" target="_blank"${title}>${whole[1]}</a></p>`;
  }
  // Zulip's change_katex_to_raw_latex: mail clients render no MathML, so math shows as its TeX source.
  html = html.replace(/<span class="katex-mathml">[\s\S]*?<annotation encoding="application\/x-tex">([\s\S]*?)<\/annotation>[\s\S]*?<\/math><\/span>/g, '$$$$$1$$$$');
  // Pass 1: Parley's own structure (previews, spoilers, emoji) rewritten, everything kept.
  html = sanitizeHtml(html, {
    allowedTags: false,
    allowedAttributes: false,
    allowVulnerableTags: true,
    exclusiveFilter: (frame) => {
      const classes = classesOf(frame.attribs);
      return classes.includes('message_inline_image') || classes.includes('spoiler-content') || classes.includes('message_embed')
        || classes.includes('katex-html');
    },
    transformTags: {
      span: (tagName, attribs) => {
        const code = /(?:^|\s)emoji-(\S+)/.exec(attribs.class ?? '')?.[1];
        if (!classesOf(attribs).includes('emoji') || code === undefined) return { tagName, attribs };
        // The character itself: every mail client draws Unicode emoji, and Parley serves no per-emoji images to link.
        if (!/^[0-9a-f]{2,6}(?:-[0-9a-f]{2,6})*$/.test(code)) return { tagName, attribs };
        const title = attribs.title ?? '';
        return { tagName: 'span', attribs: { title }, text: String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16))) };
      },
    },
  });
  html = html.replace(/<div class="spoiler-header">\s*(?:<p>([\s\S]*?)<\/p>)?\s*<\/div>/g, (_m, header: string | undefined) =>
    `<p>${header ? `${header} ` : ''}<span class="spoiler-title" title="${SPOILER_TITLE}">(${SPOILER_TITLE})</span></p>`);
  // Pass 2: what a mail client may render, with absolute links.
  return sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'title', 'target'],
      img: ['src', 'alt', 'title', 'style'],
      span: ['class', 'title'],
      div: ['class'],
      code: ['class'],
      td: ['style'], th: ['style'],
      time: ['datetime'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    allowedStyles: { img: { height: [/^\d+px$/] }, td: { 'text-align': [/^(left|right|center)$/] }, th: { 'text-align': [/^(left|right|center)$/] } },
    transformTags: {
      a: (tagName, attribs) => {
        if (attribs.href === undefined) return { tagName, attribs };
        const href = absolute(attribs.href, realmUrl);
        // Zulip rewrites the title of a link to a narrow with it (only such links carry their URL as title).
        const title = attribs.title !== undefined && /^\/?#narrow\//.test(attribs.href) ? href : attribs.title;
        return { tagName, attribs: { ...attribs, href, ...(title !== undefined ? { title } : {}) } };
      },
      img: (tagName, attribs) => {
        const src = attribs.src === undefined ? undefined : absolute(attribs.src, realmUrl);
        // Custom emoji keep their image, at text height; any other image is a link to it.
        if (classesOf(attribs).includes('emoji')) {
          const kept: Record<string, string> = { style: 'height: 20px;' };
          for (const a of ['alt', 'title'] as const) if (attribs[a] !== undefined) kept[a] = attribs[a];
          if (src !== undefined) kept.src = src;
          return { tagName, attribs: kept };
        }
        return { tagName: 'a', attribs: { href: src ?? '', target: '_blank' }, text: src ?? '' };
      },
    },
  });
}

/** Zulip's fix_spoilers_in_text: a spoiler's fenced content replaced by a note. */
function dropSpoilers(content: string): string {
  const out: string[] = [];
  let open: string | null = null;
  for (const line of content.split('\n')) {
    const fence = /^\s*(`{3,}|~{3,})[ ]*(?:\{?\.?([^\s}]*)\}?)?[^`]*$/.exec(line);
    if (fence) {
      if (open === null && fence[2] === 'spoiler') {
        open = fence[1]!;
        out.push(line, `(${SPOILER_TITLE})`);
      } else if (open !== null && fence[1] === open) {
        open = null;
        out.push(line);
      } else if (open === null) {
        out.push(line);
      }
    } else if (open === null) {
      out.push(line);
    }
  }
  return out.join('\n');
}

/** The plain-text part of one message: its Markdown, as Zulip's txt template shows it, quoted. */
export function mailPlainText(content: string, realmUrl: string): string {
  let plain = content.replace(/\[(\S*)\]\((\S*)\)/g, '$2');
  plain = plain.replace(/(^|[^\w/:.-])\/user_uploads\/(\S*)/g, `$1${realmUrl}/user_uploads/$2`);
  plain = dropSpoilers(plain);
  return plain.split('\n').map((line) => `> ${line}`).join('\n');
}

/** Zulip's prepend_sender_to_message: "Sender:" above the text, **Sender**: in the first paragraph. */
export function prependSender(plain: string, html: string, sender: string): { plain: string; html: string } {
  const bold = `<b>${escapeHtml(sender)}</b>: `;
  const m = /^(\s*(?:<div[^>]*>\s*)?<p>)/.exec(html);
  return { plain: `${sender}:\n${plain}`, html: m ? `${m[1]}${bold}${html.slice(m[1]!.length)}` : `${bold}${html}` };
}
