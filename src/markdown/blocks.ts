import type { MarkdownIt } from 'markdown-it';
import type { RenderEnv } from './types.js';
import { escapeHtml } from './html.js';
import { fenceInfo } from './syntax.js';

// Pygments' display names for the languages people use most; others keep the name given.
const LANGUAGES: Record<string, string> = {
  python: 'Python', py: 'Python', python3: 'Python', py3: 'Python', py2: 'Python 2.x', javascript: 'JavaScript', js: 'JavaScript',
  typescript: 'TypeScript', ts: 'TypeScript', java: 'Java', c: 'C', cpp: 'C++', 'c++': 'C++', csharp: 'C#', cs: 'C#',
  go: 'Go', golang: 'Go', rust: 'Rust', rs: 'Rust', ruby: 'Ruby', rb: 'Ruby', bash: 'Bash', sh: 'Bash', shell: 'Bash',
  console: 'Bash Session', json: 'JSON', html: 'HTML', css: 'CSS', sql: 'SQL', yaml: 'YAML', yml: 'YAML', xml: 'XML',
  markdown: 'Markdown', md: 'Markdown', php: 'PHP', kotlin: 'Kotlin', swift: 'Swift', scala: 'Scala', haskell: 'Haskell',
  text: 'Text only', diff: 'Diff', dockerfile: 'Docker', toml: 'TOML', ini: 'INI', perl: 'Perl', lua: 'Lua', r: 'R',
};

function codeBlock(code: string, lang: string): string {
  // Own keys only: a fence named `constructor` is not a language we know.
  const known = Object.hasOwn(LANGUAGES, lang.toLowerCase()) ? LANGUAGES[lang.toLowerCase()] : undefined;
  const attr = lang ? ` data-code-language="${escapeHtml(known ?? lang)}"` : '';
  const body = code.replace(/[ \t]+$/gm, '');
  return `<div class="codehilite"${attr}><pre><span></span><code>${escapeHtml(body.endsWith('\n') ? body : `${body}\n`)}</code></pre></div>\n`;
}

/** Code blocks, ```quote and ```spoiler fences in Zulip's HTML. */
export function blockRenderers(md: MarkdownIt, renderNested: (src: string, env: RenderEnv) => string): void {
  md.renderer.rules.fence = (tokens, idx, _options, rawEnv) => {
    const env = rawEnv as unknown as RenderEnv;
    const token = tokens[idx]!;
    const { lang, header } = fenceInfo(token.info);
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
    return codeBlock(token.content, lang);
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock(tokens[idx]!.content, '');
}
