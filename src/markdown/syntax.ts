import type { MarkdownIt, StateBlock, StateCore, StateInline } from 'markdown-it';

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;
type InlineRule = (state: StateInline, silent: boolean) => boolean;

/**
 * Zulip's fence line: a language of `[a-zA-Z0-9_+-./#]` (optionally after `.` or inside
 * `{}`), then an optional header (a spoiler's title); none of it may hold a tilde or a
 * backtick. A line that is not of this shape is a paragraph in Zulip, not an unclosed fence
 * swallowing the rest of the message. (Checked without a backtracking regex: Zulip's own
 * pattern takes quadratic time on a long line.)
 */
export function isFenceInfo(info: string): boolean {
  return !/[~`]/.test(info);
}

/** Splits a fence's info string the way Zulip reads it. */
export function fenceInfo(info: string): { lang: string; header: string } {
  const text = info.trim();
  const m = /^\{?\.?([a-zA-Z0-9_+\-./#]*)/.exec(text)!;
  let header = text.slice(m[0].length).trim();
  if (text.startsWith('{') && header.endsWith('}')) header = header.slice(0, -1).trim();
  return { lang: m[1]!, header };
}

function ruleOf<T>(rules: { __rules__: Array<{ name: string; fn: T }> }, name: string): T {
  const r = rules.__rules__.find((x) => x.name === name);
  if (!r) throw new Error(`markdown-it has no ${name} rule`);
  return r.fn;
}

/** Where Zulip's dialect departs from CommonMark. */
export function zulipSyntax(md: MarkdownIt): void {
  const fence = ruleOf<BlockRule>(md.block.ruler as never, 'fence');
  md.block.ruler.at('fence', (state, startLine, endLine, silent) => {
    const line = state.src.slice(state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]);
    const marker = /^(`{3,}|~{3,})/.exec(line);
    if (marker && !isFenceInfo(line.slice(marker[1]!.length))) return false;
    return fence(state, startLine, endLine, silent);
  }, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });

  // Zulip's quote needs some text: lines of bare `>` with nothing after them in the block are
  // a paragraph (`>` alone shows as ">"), at every depth.
  const blockquote = ruleOf<BlockRule>(md.block.ruler as never, 'blockquote');
  md.block.ruler.at('blockquote', (state, startLine, endLine, silent) => {
    let line = startLine;
    for (; line < endLine && !state.isEmpty(line); line++) {
      const text = state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
      if (!/^>\s*$/.test(text)) break;
    }
    if (line === endLine || state.isEmpty(line)) return false;
    return blockquote(state, startLine, endLine, silent);
  }, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });

  // Zulip keeps inline code as typed between its backticks (CommonMark drops one space at each end).
  const backticks = ruleOf<InlineRule>(md.inline.ruler as never, 'backticks');
  md.inline.ruler.at('backticks', (state, silent) => {
    const start = state.pos;
    const before = state.tokens.length;
    if (!backticks(state, silent)) return false;
    const token = state.tokens[state.tokens.length - 1];
    if (!silent && state.tokens.length > before && token?.type === 'code_inline') {
      const n = token.markup.length;
      token.content = state.src.slice(start + n, state.pos - n).replace(/\n/g, ' ');
    }
    return true;
  });

  // Zulip's strikethrough: exactly two tildes each side around text without tilde or line break,
  // spaces allowed inside (`~~ a ~~`), never part of a longer run of tildes.
  md.inline.ruler.at('strikethrough', (state, silent) => {
    const src = state.src;
    const pos = state.pos;
    if (src.charCodeAt(pos) !== 0x7e || src.charCodeAt(pos + 1) !== 0x7e) return false;
    if ((pos > 0 && src[pos - 1] === '~') || src[pos + 2] === '~') return false;
    let end = pos + 2;
    while (end < state.posMax && src[end] !== '~' && src[end] !== '\n') end++;
    if (end === pos + 2 || end + 1 >= state.posMax || src[end] !== '~' || src[end + 1] !== '~' || src[end + 2] === '~') return false;
    if (!silent) {
      state.push('s_open', 's', 1).markup = '~~';
      const max = state.posMax;
      state.pos = pos + 2;
      state.posMax = end;
      state.md.inline.tokenize(state);
      state.posMax = max;
      state.push('s_close', 's', -1).markup = '~~';
    }
    state.pos = end + 2;
    return true;
  });

  // Zulip's emphasis never spans a line break (the markers stay as typed), and `***a***` is
  // strong outside emphasis.
  md.core.ruler.after('inline', 'zulip_emphasis', (state: StateCore) => {
    for (const block of state.tokens) {
      const t = block.children;
      if (!t) continue;
      for (let i = 0; i < t.length; i++) {
        const open = t[i]!;
        if (open.type !== 'strong_open' && open.type !== 'em_open') continue;
        const closeType = open.type.replace('_open', '_close');
        let depth = 0;
        let j = i + 1;
        let broken = false;
        for (; j < t.length; j++) {
          if (t[j]!.type === open.type) depth++;
          else if (t[j]!.type === closeType && depth-- === 0) break;
          else if (t[j]!.type === 'softbreak' || t[j]!.type === 'hardbreak') broken = true;
        }
        if (j >= t.length) continue;
        if (broken) {
          for (const k of [i, j]) {
            const text = new state.Token('text', '', 0);
            text.content = t[k]!.markup;
            t[k] = text;
          }
        } else if (open.type === 'em_open') {
          // The delimiters leave empty text tokens between the markers.
          let a = i + 1;
          while (t[a]?.type === 'text' && t[a]!.content === '') a++;
          let b = j - 1;
          while (t[b]?.type === 'text' && t[b]!.content === '') b--;
          if (a < b && t[a]!.type === 'strong_open' && t[b]!.type === 'strong_close') {
            [t[i], t[a], t[b], t[j]] = [t[a]!, t[i]!, t[j]!, t[b]!];
          }
        }
      }
    }
  });

  // Underscores never emphasise in Zulip (`_foo_`, `__foo__` stay as typed); asterisks do.
  const emphasis = ruleOf<InlineRule>(md.inline.ruler as never, 'emphasis');
  md.inline.ruler.at('emphasis', (state, silent) => (state.src.charCodeAt(state.pos) === 0x5f ? false : emphasis(state, silent)));

  md.core.ruler.after('normalize', 'zulip_lists', (state: StateCore) => {
    const starts = new Map<number, number>();
    state.src = zulipQuotes(zulipLists(state.src, starts));
    if (starts.size > 0) listStarts.set(state.env as object, starts);
  });
  // The nested ordered lists zulipLists renumbered from 1 get back the number typed.
  md.core.ruler.after('block', 'zulip_list_starts', (state: StateCore) => {
    const starts = listStarts.get(state.env as object);
    if (!starts) return;
    listStarts.delete(state.env as object);
    for (const t of state.tokens) {
      if (t.type !== 'ordered_list_open' || !t.map) continue;
      const start = starts.get(t.map[0]);
      if (start !== undefined && start !== 1) t.attrSet('start', String(start));
    }
  });
  // Zulip keeps the spaces that end a paragraph's last line; markdown-it trims them.
  const paragraph = ruleOf<BlockRule>(md.block.ruler as never, 'paragraph');
  md.block.ruler.at('paragraph', (state, startLine, endLine, silent) => {
    const before = state.tokens.length;
    if (!paragraph(state, startLine, endLine, silent)) return false;
    const inline = state.tokens[before + 1];
    if (inline?.type === 'inline' && state.line > startLine) {
      const last = state.line - 1;
      const tail = /[ \t]+$/.exec(state.src.slice(state.bMarks[last]! + state.tShift[last]!, state.eMarks[last]))?.[0];
      if (tail && !inline.content.endsWith(tail)) inline.content += tail;
    }
    return true;
  });
  // No line break between an item's text and the list nested in it (Zulip's `<li>A<ul>`).
  for (const name of ['bullet_list_open', 'ordered_list_open']) {
    md.renderer.rules[name] = (tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options).replace(/^\n/, '');
  }

  // A link with no text shows its URL, as Zulip renders `[](https://example.com)`.
  md.core.ruler.push('zulip_empty_links', (state: StateCore) => {
    for (const block of state.tokens) {
      const children = block.children;
      if (!children) continue;
      for (let i = children.length - 2; i >= 0; i--) {
        if (children[i]!.type !== 'link_open') continue;
        // No text, or only spaces (`[  ](url)`).
        const blank = children[i + 1]!.type === 'text' && children[i + 1]!.content.trim() === '' && children[i + 2]?.type === 'link_close';
        if (children[i + 1]!.type !== 'link_close' && !blank) continue;
        const text = new state.Token('text', '', 0);
        text.content = String(children[i]!.attrGet('href') ?? '');
        children.splice(i + 1, blank ? 1 : 0, text);
      }
    }
  });
}

const listStarts = new WeakMap<object, Map<number, number>>();

const LIST_ITEM = /^( *)([*+-]|\d{1,9}[.)])( +|$)/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const THEMATIC_BREAK = /^ {0,3}([*_-])(?: *\1){2,} *$/;

/**
 * Zulip's lists, in CommonMark terms. Zulip nests a list item by two spaces per level and
 * keeps one list across `*`, `-` and `+` bullets; CommonMark needs a child indented to its
 * parent's text (three spaces under "1. ") and starts a new list at each change of bullet.
 * So, outside code fences and only within a list: an item's indentation becomes four
 * spaces per two-space level, and bullets become `*`.
 */
export function zulipLists(src: string, starts?: Map<number, number>): string {
  if (!/^ *(?:[*+-]|\d{1,9}[.)]) /m.test(src)) return src;
  const lines = src.split('\n');
  let fence: string | undefined;
  let inList = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      fence = open[1]!;
      continue;
    }
    if (line.trim() === '') continue;
    const item = LIST_ITEM.exec(line);
    if (!item || THEMATIC_BREAK.test(line)) {
      // Unindented text ends the list; indented text continues its item.
      if (!line.startsWith(' ')) inList = false;
      continue;
    }
    const spaces = item[1]!.length;
    if (spaces > 0 && !inList) continue; // an indented item outside a list is CommonMark's business
    let bullet = /^\d/.test(item[2]!) ? item[2]! : '*';
    // A nested ordered list may start at any number in Zulip; in CommonMark only one starting
    // at 1 can follow its parent's text. It is written as 1 (padded to the same width) and
    // its number restored on the parsed list (zulip_list_starts).
    if (spaces > 0 && starts && /^\d{1,2}[.)]$/.test(bullet) && Number(bullet.slice(0, -1)) !== 1) {
      starts.set(i, Number(bullet.slice(0, -1)));
      bullet = `1${bullet.slice(-1)}${' '.repeat(bullet.length - 2)}`;
    }
    const indent = ' '.repeat(Math.floor(spaces / 2) * 4);
    lines[i] = `${indent}${bullet}${line.slice(spaces + item[2]!.length)}`;
    inList = true;
  }
  return lines.join('\n');
}

// Unindented only: an indented `>` may be a quote inside a list item, which this leaves alone.
const QUOTE_LINE = /^>/;

/**
 * Zulip's quote runs to the end of its block: once a line of a block is quoted, the block's
 * later lines are in the quote too (`>`, `>`, `text` quotes "text"), where CommonMark ends the
 * quote at a line that is not a paragraph's continuation. Outside code fences.
 */
export function zulipQuotes(src: string): string {
  if (!src.includes('>') || !/^>.*\n/m.test(src)) return src;
  const lines = src.split('\n');
  let fence: string | undefined;
  let quoting = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      fence = open[1]!;
      quoting = false;
      continue;
    }
    if (line.trim() === '') quoting = false;
    else if (QUOTE_LINE.test(line)) quoting = true;
    else if (quoting) lines[i] = `> ${line}`;
  }
  return lines.join('\n');
}
