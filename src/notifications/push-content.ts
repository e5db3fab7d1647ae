import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';

/**
 * A message's rendered HTML as the plain text a phone's notification shows: Zulip's
 * get_mobile_push_content (zerver/lib/push_notifications.py). Emoji become their
 * characters, images their alt text, quotes `> ` lines, ordered lists their numbers,
 * spoilers their header and `(…)`, TeX its source.
 */
export function mobilePushContent(renderedHtml: string): string {
  const root = parseDocument(renderedHtml, { decodeEntities: true });
  return processChildren(root.children, 0);
}

/**
 * The children in order. Text after an element is its tail in lxml, which Zulip's process()
 * adds, except after an ordered list or a spoiler, whose renderings drop it.
 */
function processChildren(children: ChildNode[], olDepth: number): string {
  let out = '';
  let prev: ChildNode | undefined;
  for (const c of children) {
    const dropsTail = prev !== undefined && isElement(prev) && (prev.name === 'ol' || /(^|\s)spoiler-block(\s|$)/.test(classesOf(prev)));
    if (!(c.type === 'text' && dropsTail)) out += processNode(c, olDepth);
    prev = c;
  }
  return out;
}

/** Zulip's truncate_content: over 200 characters, the first 200 and an ellipsis. */
export function truncateContent(content: string): { content: string; truncated: boolean } {
  // Python slices code points; a JavaScript string's length counts UTF-16 units.
  const chars = [...content];
  if (chars.length <= 200) return { content, truncated: false };
  return { content: `${chars.slice(0, 200).join('')}…`, truncated: true };
}

const isElement = (n: ChildNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';
const classesOf = (e: Element) => e.attribs.class ?? '';
const textOf = (n: ChildNode): string => (n.type === 'text' ? n.data : isElement(n) ? n.children.map(textOf).join('') : '');

/** One element's own text before its children (lxml's `.text`). */
function ownText(e: Element): string {
  const classes = classesOf(e);
  if (/(^|\s)emoji(\s|$)/.test(classes)) {
    const m = /emoji-(\S+)/.exec(classes);
    if (m) {
      try {
        return m[1]!.split('-').map((h) => String.fromCodePoint(parseInt(h, 16))).join('');
      } catch {
        /* not a code point: fall through to the text */
      }
    }
  }
  if (e.name === 'img') return e.attribs.alt ?? '';
  if (e.name === 'blockquote') return '';
  const first = e.children[0];
  return first?.type === 'text' ? first.data : '';
}

function processNode(n: ChildNode, olDepth: number): string {
  if (n.type === 'text') return n.data;
  if (!isElement(n)) return '';
  return processElement(n, olDepth);
}

/** Zulip's process(): the element's text, its children's, then (via the parent) its tail. */
function processElement(e: Element, olDepth: number): string {
  if (e.name === 'ol') return renderOrderedList(e, olDepth);
  const classes = classesOf(e);
  if (/(^|\s)spoiler-block(\s|$)/.test(classes)) return renderSpoiler(e, olDepth);
  // TeX: the source KaTeX keeps in its annotation, between $$ as Zulip's change_katex_to_raw_latex writes it.
  if (/(^|\s)katex(\s|$)/.test(classes)) {
    const annotation = findFirst(e, (x) => x.name === 'annotation');
    if (annotation) return `$$${textOf(annotation)}$$`;
  }
  let out = ownText(e);
  // ownText consumed a leading text child (lxml keeps it apart from the children).
  const rest = e.children[0]?.type === 'text' ? e.children.slice(1) : e.children;
  let sub = processChildren(rest, olDepth);
  if (e.name === 'blockquote') sub = sub.split(/\r\n|\r|\n/).filter((l) => l).map((l) => `> ${l}\n`).join('');
  out += sub;
  return out;
}

function renderOrderedList(ol: Element, olDepth: number): string {
  let counter = ol.attribs.start ? parseInt(ol.attribs.start, 10) : 1;
  const indent = olDepth > 0 ? `\n${'  '.repeat(olDepth)}` : '';
  const items: string[] = [];
  for (const li of ol.children) {
    // lxml iterates an <ol>'s element children; the whitespace between them is their tails, dropped here as Zulip drops it.
    if (!isElement(li)) continue;
    items.push(`${indent}${counter}. ${processElement(li, olDepth + 1).trim()}`);
    counter++;
  }
  return items.join('\n');
}

function renderSpoiler(e: Element, olDepth: number): string {
  const header = findFirst(e, (x) => /(^|\s)spoiler-header(\s|$)/.test(classesOf(x)));
  const text = header ? processElement(header, olDepth).trim() : '';
  return text.length === 0 ? '(…)\n' : `${text} (…)\n`;
}

function findFirst(e: Element, pred: (x: Element) => boolean): Element | undefined {
  for (const c of e.children) {
    if (!isElement(c)) continue;
    if (pred(c)) return c;
    const found = findFirst(c, pred);
    if (found) return found;
  }
  return undefined;
}
