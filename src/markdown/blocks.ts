import type { MarkdownIt } from 'markdown-it';
import type { RenderEnv } from './types.js';
import { escapeHtml } from './html.js';
import { fenceInfo } from './syntax.js';
import { firstLineLanguage, highlightCode, pygmentsName } from './highlight.js';
import { mathFence } from './math.js';

/**
 * Zulip's code block: Pygments' HTML, with data-code-language (Pygments' name for the
 * language, or the name typed when Pygments has none) whenever a language was given.
 */
function codeBlock(code: string, lang: string): string {
  const attr = lang ? ` data-code-language="${escapeHtml(pygmentsName(lang))}"` : '';
  let body = code.replace(/[ \t]+$/gm, '');
  if (!body.endsWith('\n')) body += '\n';
  // Without a language, a first line like `#!python` picks one (no data-code-language, as Zulip).
  const guessed = lang ? undefined : firstLineLanguage(body);
  const html = (lang || guessed ? highlightCode(body, lang || guessed!) : undefined) ?? escapeHtml(body);
  return `<div class="codehilite"${attr}><pre><span></span><code>${html}</code></pre></div>\n`;
}

/** Code blocks, ```quote and ```spoiler fences in Zulip's HTML. */
export function blockRenderers(md: MarkdownIt, renderNested: (src: string, env: RenderEnv) => string): void {
  md.renderer.rules.fence = (tokens, idx, _options, rawEnv) => {
    const env = rawEnv as unknown as RenderEnv;
    const token = tokens[idx]!;
    const info = fenceInfo(token.info);
    const { header } = info;
    // The organization's default language stands for a fence that names none (Zulip's
    // default_code_block_language), before quote and spoiler are told apart.
    const lang = info.lang || (env.rctx.defaultCodeBlockLanguage ?? '');
    const quote = lang === 'quote' || lang === 'quoted';
    const nested = (src: string) => {
      // Deeply nested quotes would recurse without bound; past the limit they stay code.
      if (env.depth >= 20) return codeBlock(src, '');
      env.depth += 1;
      if (quote) env.quoted += 1;
      try {
        return renderNested(src, env);
      } finally {
        env.depth -= 1;
        if (quote) env.quoted -= 1;
      }
    };
    if (quote) return `<blockquote>\n${nested(token.content)}</blockquote>\n`;
    if (lang === 'spoiler') {
      return `<div class="spoiler-block"><div class="spoiler-header">\n${header ? nested(header) : ''}</div><div class="spoiler-content" aria-hidden="true">\n${nested(token.content)}</div></div>\n`;
    }
    if (lang === 'math') return mathFence(token.content, env);
    return codeBlock(token.content, lang);
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');
}
