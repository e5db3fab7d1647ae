import type { MarkdownIt } from 'markdown-it';
import type { StateCore } from 'markdown-it';
import type { Token } from 'markdown-it';
import type { RenderEnv, Linkifier } from './types.js';
import { codeForChars, nameForCode, unicodeEmojiPattern } from '../emoji/index.js';
import { emojiSpan } from './html.js';

/** Splits text tokens: unicode emoji become Zulip's emoji spans, linkifier matches become links. */
export function textRules(md: MarkdownIt): void {
  md.core.ruler.push('zulip_text', (state: StateCore) => {
    const env = state.env as unknown as RenderEnv;
    const linkifiers = compileLinkifiers(env.rctx.linkifiers);
    for (const block of state.tokens) {
      if (block.type !== 'inline' || !block.children) continue;
      const out: Token[] = [];
      let inLink = 0;
      for (const t of block.children) {
        if (t.type === 'link_open') inLink += 1;
        if (t.type === 'link_close') inLink -= 1;
        if (t.type !== 'text') {
          out.push(t);
          continue;
        }
        for (const piece of splitLinkifiers(state, t.content, inLink > 0 ? [] : linkifiers)) {
          if (piece.type !== 'text') out.push(piece);
          else out.push(...splitEmoji(state, piece.content));
        }
      }
      block.children = out;
    }
  });
}

function textToken(state: StateCore, content: string): Token {
  const t = new state.Token('text', '', 0);
  t.content = content;
  return t;
}

let emojiRe: RegExp | undefined;
// Every emoji is outside ASCII; most messages are not, and skip the big pattern.
const NON_ASCII = /[^\x00-\x7f]/;

function splitEmoji(state: StateCore, text: string): Token[] {
  if (!NON_ASCII.test(text)) return [textToken(state, text)];
  const re = (emojiRe ??= unicodeEmojiPattern());
  re.lastIndex = 0;
  const out: Token[] = [];
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const code = codeForChars(m[0]);
    const name = code ? nameForCode(code) : undefined;
    if (!code || !name) continue;
    if (m.index! > last) out.push(textToken(state, text.slice(last, m.index)));
    const html = new state.Token('zulip_html', '', 0);
    html.content = emojiSpan(name, code);
    out.push(html);
    last = m.index! + m[0].length;
  }
  if (last === 0) return [textToken(state, text)];
  if (last < text.length) out.push(textToken(state, text.slice(last)));
  return out;
}

interface Compiled { re: RegExp; template: string }

const compiledCache = new WeakMap<Linkifier[], Compiled[]>();

function compileLinkifiers(list: Linkifier[]): Compiled[] {
  let c = compiledCache.get(list);
  if (!c) {
    c = [];
    for (const l of list) {
      try {
        // Zulip patterns use Python's (?P<name>...) groups.
        c.push({ re: new RegExp(l.pattern.replace(/\(\?P</g, '(?<'), 'gu'), template: l.url_template });
      } catch {
        /* an invalid pattern was rejected when saved; skip rather than fail a send */
      }
    }
    compiledCache.set(list, c);
  }
  return c;
}

function expand(template: string, m: RegExpMatchArray): string {
  return template.replace(/\{(\w+)\}|%\((\w+)\)s/g, (_all, a: string, b: string) => encodeURIComponent(m.groups?.[a ?? b] ?? ''));
}

/** Linkifier matches inside one text token, as link_open/text/link_close triples. */
function splitLinkifiers(state: StateCore, text: string, linkifiers: Compiled[]): Token[] {
  if (linkifiers.length === 0) return [textToken(state, text)];
  const matches: Array<{ start: number; end: number; href: string }> = [];
  for (const l of linkifiers) {
    l.re.lastIndex = 0;
    for (const m of text.matchAll(l.re)) {
      if (m[0] === '') continue;
      const start = m.index!;
      const end = start + m[0].length;
      // Zulip requires a boundary before the match, and the first linkifier wins on overlap.
      if (start > 0 && /\w/.test(text[start - 1]!)) continue;
      if (matches.some((x) => start < x.end && end > x.start)) continue;
      matches.push({ start, end, href: expand(l.template, m) });
    }
  }
  if (matches.length === 0) return [textToken(state, text)];
  matches.sort((a, b) => a.start - b.start);
  const out: Token[] = [];
  let last = 0;
  for (const m of matches) {
    if (m.start > last) out.push(textToken(state, text.slice(last, m.start)));
    const open = new state.Token('link_open', 'a', 1);
    open.attrs = [['href', m.href]];
    out.push(open, textToken(state, text.slice(m.start, m.end)), new state.Token('link_close', 'a', -1));
    last = m.end;
  }
  if (last < text.length) out.push(textToken(state, text.slice(last)));
  return out;
}
