import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import type { RenderContext, RenderEnv, RenderResult } from './types.js';
import { inlineRules } from './inline.js';
import { blockRenderers } from './blocks.js';
import { textRules } from './text.js';
import { sanitize } from './sanitize.js';
import { zulipSyntax } from './syntax.js';
import { timestampRule } from './timestamp.js';
import { mathRules, restoreMath } from './math.js';

export type { RenderContext, RenderResult, RenderUser, Linkifier } from './types.js';
export { EMPTY_CONTEXT } from './types.js';

/**
 * Zulip-flavoured markdown: CommonMark through markdown-it with Zulip's HTML for code
 * blocks, quotes, spoilers, mentions, stream links and emoji; raw HTML in the input is
 * escaped, and the output goes through an allow-list sanitiser as a last line of defence.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
// Zulip has no reference-style links, setext headings or inline images.
md.disable(['reference', 'lheading', 'image', 'autolink']);
// Zulip links bare domains ("example.com", "www.example.com") as well as URLs.
md.linkify.set({ fuzzyLink: true });
// Zulip ends a link before a trailing colon ("see http://example.com/a:").
type LinkMatch = { lastIndex: number; raw: string; text: string; url: string };
const trimColon = <T extends LinkMatch | null>(m: T): T => {
  if (m && m.raw.endsWith(':') && m.raw.length > 1) {
    m.lastIndex -= 1;
    m.raw = m.raw.slice(0, -1);
    m.text = m.text.endsWith(':') ? m.text.slice(0, -1) : m.text;
    m.url = m.url.endsWith(':') ? m.url.slice(0, -1) : m.url;
  }
  return m;
};
// Zulip's list of top-level domains leaves out .py and .md: "views.py" and "readme.md" are file
// names far more often than hosts.
const fileLike = (m: LinkMatch & { schema: string }) => m.schema === '' && /\.(py|md)$/i.test(m.raw.split(/[/?#:]/, 1)[0]!);
const linkMatch = md.linkify.match.bind(md.linkify);
md.linkify.match = (text: string) => linkMatch(text)?.map(trimColon).filter((m) => !fileLike(m)) ?? null;
// A link shows the URL as typed (markdown-it would decode %20 and punycode for display).
md.normalizeLinkText = (s: string) => s;
const linkMatchAtStart = md.linkify.matchAtStart.bind(md.linkify);
md.linkify.matchAtStart = (text: string) => trimColon(linkMatchAtStart(text));
// Fuzzy matching is a costly regex; text with no dot before a character, no colon and no
// @ holds no link, and most chat text is that (it halves the cost of a plain sentence).
const linkTest = md.linkify.test.bind(md.linkify);
md.linkify.test = (text: string) => /[:@]|\.[^\s.]/u.test(text) && linkTest(text);
// Zulip links only these schemes (and relative URLs); anything else stays the text typed.
const LINK_SCHEMES = new Set(['http', 'https', 'ftp', 'mailto', 'tel', 'sms']);
md.validateLink = (url: string) => {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  return scheme === undefined || LINK_SCHEMES.has(scheme.toLowerCase());
};
zulipSyntax(md);
inlineRules(md);
timestampRule(md);
mathRules(md);
blockRenderers(md, (src, env) => md.render(src, env as unknown as Record<string, unknown>));
textRules(md);

/** Zulip's limit of inline previews in one message. */
const MAX_PREVIEWS = 24;
/** Zulip's level 276: image previews carry the original's pixel size. */
const ORIGINAL_DIMENSIONS_LEVEL = 276;
/**
 * Zulip's level 336: and the original's content type. Its `data-transcoded-image` names a
 * browser-friendly copy of a format browsers lack (HEIC, TIFF) that its thumbnailer made;
 * Parley makes none, so never writes it.
 */
const ORIGINAL_CONTENT_TYPE_LEVEL = 336;
const escapeAttr = md.utils.escapeHtml;

/**
 * Zulip's inline preview of an uploaded image, after the paragraph linking it (which goes
 * when the link is all it holds), once per file. Parley makes no thumbnails, so the preview
 * shows the original: Zulip's markup before thumbnailing, which its clients all read.
 * Only files whose pixel size the context knows (the organization's uploaded images).
 */
md.core.ruler.push('upload_previews', (state) => {
  const env = state.env as unknown as RenderEnv;
  const images = env.rctx.uploadedImages;
  if (!images || images.size === 0) return;
  const level = env.rctx.featureLevel ?? 122;
  const seen = new Set<string>();
  const tokens = state.tokens;
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (tokens[i]!.type !== 'paragraph_open' || tokens[i]!.level !== 0) continue;
    const children = tokens[i + 1]!.children ?? [];
    const previews: string[] = [];
    let linkOnly = false;
    for (let c = 0; c < children.length; c++) {
      const t = children[c]!;
      if (t.type !== 'link_open') continue;
      const href = String(t.attrGet('href') ?? '');
      if (!href.startsWith('/user_uploads/')) continue;
      const size = images.get(href.slice('/user_uploads/'.length));
      if (!size || seen.has(href) || seen.size >= MAX_PREVIEWS) continue;
      seen.add(href);
      let title = '';
      for (let k = c + 1; k < children.length && children[k]!.type !== 'link_close'; k++) title += children[k]!.content;
      // Zulip's attribute order (alphabetical): content type, then dimensions.
      const type = level >= ORIGINAL_CONTENT_TYPE_LEVEL && size.contentType ? ` data-original-content-type="${escapeAttr(size.contentType)}"` : '';
      const dims = `${type}${level >= ORIGINAL_DIMENSIONS_LEVEL ? ` data-original-dimensions="${size.width}x${size.height}"` : ''}`;
      previews.push(`<div class="message_inline_image"><a href="${escapeAttr(href)}" title="${escapeAttr(title)}"><img${dims} src="${escapeAttr(href)}"></a></div>`);
      linkOnly = children.length === 3 && c === 0 && children[2]!.type === 'link_close';
    }
    if (previews.length === 0) continue;
    const block = new state.Token('html_block', '', 0);
    block.content = `${previews.join('\n')}\n`;
    if (linkOnly) {
      // The link was all the paragraph held: Zulip shows only its preview.
      tokens.splice(i, 3, block);
    } else {
      tokens.splice(i + 3, 0, block);
      i += 3;
    }
  }
});

/**
 * Raw URLs in plain text (a topic's), as Zulip's topic_links finds them: a link typed without
 * a scheme gets https://.
 */
export function webLinks(text: string): Array<{ index: number; text: string; url: string }> {
  if (!md.linkify.test(text)) return [];
  return (md.linkify.match(text) ?? [])
    .filter((m) => m.schema !== 'mailto:' && !(m.schema === '' && m.raw.includes('@')))
    .map((m) => ({ index: m.index, text: m.raw, url: m.schema === '' ? `https://${m.raw}` : m.raw }));
}

const IMAGE_RE = /\.(png|jpe?g|gif|webp|bmp|svg|tiff?)(\?.*)?$/i;

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens: Token[], idx, options, rawEnv, self) => {
  const env = rawEnv as unknown as RenderEnv;
  const token = tokens[idx]!;
  const href = String(token.attrGet('href') ?? '');
  env.result.hasLink = true;
  if (IMAGE_RE.test(href)) env.result.hasImage = true;
  if (href.includes('/user_uploads/')) env.result.hasAttachment = true;
  // A bare <a href>, as Zulip renders links: its clients (the web app, the phone app) decide
  // how a link opens, and a title repeating the href is noise (docs/markdown.md, "Links").
  return defaultLinkOpen(tokens, idx, options, rawEnv, self);
};
// Zulip's HTML serialiser escapes only &, < and > in text (quotes only inside attributes), so a
// double quote typed in a message stays a double quote.
const escapeText = (s: string) => (/[&<>]/.test(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : s);
md.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
md.renderer.rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
md.renderer.rules.s_open = () => '<del>';
md.renderer.rules.s_close = () => '</del>';

export function renderMarkdown(content: string, rctx: RenderContext): RenderResult {
  const result: RenderResult = {
    html: '', mentionedUserIds: new Set(), wildcardMentioned: false, topicWildcardMentioned: false, mentionedGroupIds: new Set(),
    hasLink: false, hasImage: false, hasAttachment: false, isMeMessage: false,
  };
  const env: RenderEnv = { rctx, result, depth: 0, quoted: 0 };
  const raw = md.render(content, env as unknown as Record<string, unknown>).replace(/\n$/, '');
  result.html = restoreMath(sanitize(raw), env);
  // Zulip's rule: a one-line message starting "/me " that rendered to a single paragraph.
  result.isMeMessage = content.startsWith('/me ') && !content.includes('\n')
    && result.html.startsWith('<p>') && result.html.endsWith('</p>');
  return result;
}
