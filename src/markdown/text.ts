import type { MarkdownIt } from 'markdown-it';
import type { StateCore } from 'markdown-it';
import type { Token } from 'markdown-it';
import type { RenderEnv } from './types.js';
import { compileLinkifiers, linkifyText, type CompiledLinkifiers } from './linkifiers.js';
import { codeForChars, nameForCode, unicodeEmojiPattern } from '../emoji/index.js';
import { emojiSpan } from './html.js';

/** Splits text tokens: unicode emoji become Zulip's emoji spans, linkifier matches become links. */
export function textRules(md: MarkdownIt): void {
  md.core.ruler.push('zulip_text', (state: StateCore) => {
    const env = state.env as unknown as RenderEnv;
    const linkifiers = env.rctx.linkifiers.length > 0 ? compileLinkifiers(env.rctx.linkifiers) : undefined;
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
        for (const piece of splitLinkifiers(state, t.content, inLink > 0 ? undefined : linkifiers)) {
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

/** Linkifier matches inside one text token, as link_open/text/link_close triples. */
function splitLinkifiers(state: StateCore, text: string, linkifiers: CompiledLinkifiers | undefined): Token[] {
  if (!linkifiers || linkifiers.list.length === 0) return [textToken(state, text)];
  const out: Token[] = [];
  for (const piece of linkifyText(text, linkifiers)) {
    if (typeof piece === 'string') {
      out.push(textToken(state, piece));
      continue;
    }
    const open = new state.Token('link_open', 'a', 1);
    open.attrs = [['href', piece.href]];
    out.push(open, textToken(state, piece.text), new state.Token('link_close', 'a', -1));
  }
  return out;
}
