import { createRequire } from 'node:module';
import type { MarkdownIt } from 'markdown-it';
import type { StateInline } from 'markdown-it';
import type { RenderEnv } from './types.js';

/**
 * Zulip's math: `$$...$$` inline and ```math fences, typeset by KaTeX into the HTML (and
 * MathML) Zulip sends, which the phone app parses and draws. TeX that KaTeX refuses shows as
 * typed in a `tex-error` span. KaTeX's markup cannot pass the allow-list sanitiser (its
 * spans carry styles, sqrt signs are SVG), and need not: it is KaTeX's own output for TeX it
 * parsed, with `trust` off, so no input reaches it as markup. Each piece is kept aside while
 * the message is sanitised and put back after (see `placeholder` and `restoreMath`).
 */

// KaTeX is loaded at the first formula: most messages, and most render threads' lives, have none.
const require = createRequire(import.meta.url);
let katexModule: typeof import('katex').default | undefined;
const katex = () => (katexModule ??= require('katex') as typeof import('katex').default);

/** KaTeX's HTML for a formula, or undefined when KaTeX refuses it. */
export function tex(body: string, display: boolean): string | undefined {
  try {
    return katex().renderToString(body, { displayMode: display, throwOnError: true, trust: false, strict: false });
  } catch {
    return undefined;
  }
}

// NUL never survives markdown-it's input normalisation, so no message can forge a placeholder.
const MARK = '\u0000';
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

/** A token of text the sanitiser passes as it is, standing for the math kept in env. */
export function placeholder(env: RenderEnv, html: string): string {
  const math = (env.math ??= []);
  math.push(html);
  return `${MARK}${math.length - 1}${MARK}`;
}

export function restoreMath(html: string, env: RenderEnv): string {
  const math = env.math;
  if (!math || math.length === 0) return html;
  return html.replace(PLACEHOLDER, (all, i: string) => math[Number(i)] ?? all);
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// Python's html.escape, which Zulip's math fence uses for an error.
const escapeAll = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

// Zulip's pattern: \B(?<!\$)\$\$(?P<body>[^\n_$](\\\$|[^$\n])*)\$\$(?!\$)\B
const INLINE = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/y;
const WORD = /[\p{L}\p{N}_]/u;

function inlineTex(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== 0x24 /* $ */ || src.charCodeAt(pos + 1) !== 0x24) return false;
  if (pos > 0 && (src[pos - 1] === '$' || WORD.test(src[pos - 1]!))) return false;
  INLINE.lastIndex = pos;
  const m = INLINE.exec(src);
  if (!m) return false;
  const end = pos + m[0].length;
  if (end < src.length && WORD.test(src[end]!)) return false;
  if (!silent) {
    const body = m[1]!;
    const html = tex(body, false);
    const token = state.push('zulip_html', '', 0);
    token.content = html === undefined
      ? `<span class="tex-error">${escapeText(m[0])}</span>`
      : placeholder(state.env as unknown as RenderEnv, html);
  }
  state.pos = end;
  return true;
}

/** A ```math fence: each paragraph a displayed formula, as Zulip's. */
export function mathFence(body: string, env: RenderEnv): string {
  return body.replace(/\n$/, '').split('\n\n').map((para) => {
    const html = tex(para, true);
    return `<p>${html === undefined ? `<span class="tex-error">${escapeAll(para)}</span>` : placeholder(env, html)}</p>\n`;
  }).join('');
}

export function mathRules(md: MarkdownIt): void {
  md.inline.ruler.before('escape', 'zulip_tex', inlineTex);
}
