import sanitizeHtml from 'sanitize-html';

const ALLOWED: Record<string, string[]> = {
  p: [], br: [], strong: [], em: [], del: [], code: [], pre: [], blockquote: [], ul: [], li: [], hr: [],
  h1: [], h2: [], h3: [], h4: [], h5: [], h6: [], table: [], thead: [], tbody: [], tr: [],
  a: ['href', 'target', 'rel', 'title', 'class', 'data-stream-id'],
  span: ['class', 'data-user-id', 'data-user-group-id', 'aria-label', 'role', 'title'],
  div: ['class', 'data-code-language', 'aria-hidden'],
  ol: ['start'],
  time: ['datetime'],
  th: ['style'],
  td: ['style'],
  // Custom emoji, and previews of uploaded images (markdown images are disabled).
  img: ['alt', 'class', 'src', 'title', 'data-original-content-type', 'data-original-dimensions'],
};

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: Object.keys(ALLOWED),
  allowedAttributes: ALLOWED,
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto', 'ftp', 'tel', 'sms'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  // The only images the renderer makes are custom emoji and previews of uploaded files.
  exclusiveFilter: (frame) => frame.tag === 'img' && frame.attribs.class !== 'emoji'
    && !(frame.attribs.class === undefined && (frame.attribs.src ?? '').startsWith('/user_uploads/')),
};

const TAG_RE = /<(\/?)([a-zA-Z0-9]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*\/?>|<|>/g;
const ATTR_RE = /\s+([a-z-]+)="([^"<>]*)"/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'ftp', 'tel', 'sms']);

/** A URL a browser will not run: a safe scheme or none, no protocol-relative host, no hidden characters. */
function safeUrl(raw: string): boolean {
  // Entities or control characters could hide a scheme from this check but not from a browser.
  if (/&(?!amp;)|[\u0000-\u001f\u007f]/.test(raw)) return false;
  const v = raw.replace(/&amp;/g, '&');
  if (v.startsWith('//')) return false;
  const m = SCHEME.exec(v);
  return !m || SAFE_SCHEMES.has(m[1]!.toLowerCase());
}
const SAFE_STYLE = /^text-align:\s*(left|right|center);?$/;

/**
 * The renderer escapes all input and builds its own tags, so its output is almost always
 * already within the allow-list. Checking that is a fraction of the cost of re-parsing and
 * re-serialising; anything that does not pass the check goes through sanitize-html.
 */
export function sanitize(html: string): string {
  return withinAllowList(html) ? html : sanitizeHtml(html, OPTIONS).replace(/<br \/>/g, '<br>');
}

export function withinAllowList(html: string): boolean {
  TAG_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TAG_RE.exec(html)) !== null) {
    const name = m[2];
    if (name === undefined) return false; // a bare < or > outside a tag
    const allowedAttrs = ALLOWED[name.toLowerCase()];
    if (!allowedAttrs) return false;
    const attrs = m[3] ?? '';
    if (m[1] === '/' && attrs !== '') return false;
    if (name.toLowerCase() === 'img' && !/\sclass="emoji"/.test(attrs) && !/^(?:\s+data-original-content-type="[\w.+-]+\/[\w.+-]+")?(?:\s+data-original-dimensions="\d+x\d+")?\s+src="\/user_uploads\/[^"]*"$/.test(attrs)) return false;
    ATTR_RE.lastIndex = 0;
    let a: RegExpExecArray | null;
    while ((a = ATTR_RE.exec(attrs)) !== null) {
      const [, attr, value = ''] = a;
      if (!allowedAttrs.includes(attr!)) return false;
      if ((attr === 'href' || attr === 'src') && !safeUrl(value)) return false;
      if (attr === 'style' && !SAFE_STYLE.test(value)) return false;
    }
  }
  return true;
}
