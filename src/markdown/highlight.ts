import { createRequire } from 'node:module';
import type { HLJSApi, LanguageFn } from 'highlight.js';
import { escapeHtml } from './html.js';

/**
 * Code blocks highlighted as Zulip's Pygments does it, for the clients that style Pygments'
 * short token classes (`k`, `s1`, `nf`, ...): highlight.js tokenises (its grammars for the
 * languages people use most), and its scopes are mapped onto Pygments' classes. The
 * tokens differ from Pygments' in detail (highlight.js leaves names, and most operators and
 * punctuation, unmarked); the classes a theme colours most are the same.
 */
const GRAMMAR_NAMES = ['tex', 'bash', 'c', 'cpp', 'csharp', 'css', 'diff', 'dockerfile', 'go', 'haskell', 'ini', 'java', 'javascript', 'json', 'kotlin',
  'lua', 'markdown', 'perl', 'php', 'python', 'r', 'ruby', 'rust', 'scala', 'shell', 'sql', 'swift', 'typescript', 'xml', 'yaml'] as const;
type GrammarName = (typeof GRAMMAR_NAMES)[number];

/**
 * highlight.js and its grammars (about 10 MB of a process's memory) load with the first
 * fence highlighted, synchronously as rendering is. The server renders every fence on its
 * render pool's threads (bounded.ts), so its main thread, and a CLI command that renders no
 * code, never load them.
 */
let hljs: HLJSApi | undefined;
function highlighter(): HLJSApi {
  if (hljs) return hljs;
  const load = createRequire(import.meta.url);
  const core = load('highlight.js/lib/core') as HLJSApi;
  for (const name of GRAMMAR_NAMES) if (name !== 'tex') core.registerLanguage(name, load(`highlight.js/lib/languages/${name}`) as LanguageFn);
  hljs = core;
  return core;
}

/** A fence's language: Pygments' name for it (data-code-language) and the grammar that highlights it. */
const LANGUAGES: Record<string, [pygments: string, grammar?: GrammarName]> = {
  python: ['Python', 'python'], py: ['Python', 'python'], python3: ['Python', 'python'], py3: ['Python', 'python'], py2: ['Python 2.x', 'python'],
  javascript: ['JavaScript', 'javascript'], js: ['JavaScript', 'javascript'], typescript: ['TypeScript', 'typescript'], ts: ['TypeScript', 'typescript'],
  java: ['Java', 'java'], c: ['C', 'c'], cpp: ['C++', 'cpp'], 'c++': ['C++', 'cpp'], csharp: ['C#', 'csharp'], cs: ['C#', 'csharp'],
  go: ['Go', 'go'], golang: ['Go', 'go'], rust: ['Rust', 'rust'], rs: ['Rust', 'rust'], ruby: ['Ruby', 'ruby'], rb: ['Ruby', 'ruby'],
  bash: ['Bash', 'bash'], sh: ['Bash', 'bash'], shell: ['Bash', 'bash'], zsh: ['Bash', 'bash'], console: ['Bash Session', 'shell'],
  json: ['JSON', 'json'], html: ['HTML', 'xml'], xml: ['XML', 'xml'], css: ['CSS', 'css'], sql: ['SQL', 'sql'], yaml: ['YAML', 'yaml'], yml: ['YAML', 'yaml'],
  markdown: ['Markdown', 'markdown'], md: ['Markdown', 'markdown'], php: ['PHP', 'php'], kotlin: ['Kotlin', 'kotlin'], swift: ['Swift', 'swift'],
  scala: ['Scala', 'scala'], haskell: ['Haskell', 'haskell'], hs: ['Haskell', 'haskell'], diff: ['Diff', 'diff'], patch: ['Diff', 'diff'],
  dockerfile: ['Docker', 'dockerfile'], docker: ['Docker', 'dockerfile'], toml: ['TOML', 'ini'], ini: ['INI', 'ini'], cfg: ['INI', 'ini'],
  perl: ['Perl', 'perl'], pl: ['Perl', 'perl'], lua: ['Lua', 'lua'], r: ['S', 'r'], s: ['S', 'r'],
  tex: ['TeX', 'tex'], latex: ['TeX', 'tex'],
  text: ['Text only'], plain: ['Text only'], none: ['Text only'],
};

/** Pygments' name for a fence's language (Zulip's data-code-language), or the name typed. */
export function pygmentsName(lang: string): string {
  // Own keys only: a fence named `constructor` is not a language we know.
  const key = lang.toLowerCase();
  return Object.hasOwn(LANGUAGES, key) ? LANGUAGES[key]![0] : lang;
}

// highlight.js scope (its class names, modifiers joined by dots) -> Pygments' short class.
// Absent: the text takes its parent's class (a function's parameters, a tag's brackets).
const CLASSES: Record<string, string> = {
  keyword: 'k', built_in: 'nb', type: 'kt', literal: 'kc', number: 'm', string: 's', comment: 'c',
  'title.function': 'nf', 'title.class': 'nc', 'title.class.inherited': 'nc', title: 'nf', 'title.function.invoke': 'nf',
  meta: 'cp', 'meta.keyword': 'cp', 'meta.string': 'cpf', attr: 'na', attribute: 'na', variable: 'nv', 'variable.language': 'bp',
  'variable.constant': 'no', 'template-variable': 'si', symbol: 'ss', regexp: 'sr', subst: 'si', 'char.escape': 'se',
  name: 'nt', 'selector-tag': 'nt', 'selector-class': 'nc', 'selector-id': 'nn', 'selector-attr': 'na', 'selector-pseudo': 'nd',
  property: 'py', operator: 'o', punctuation: 'p', section: 'gh', emphasis: 'ge', strong: 'gs', addition: 'gi', deletion: 'gd',
  doctag: 'sd',
};

/** Pygments' finer classes where the token's text tells: '...' s1, "..." s2, # line comments c1, 0x1f mh. */
function refine(cls: string, text: string): string {
  if (cls === 's') {
    if (/^[rbuf]*'/i.test(text)) return 's1';
    if (/^[rbuf]*"/i.test(text)) return 's2';
    if (text.startsWith('`')) return 'sb';
    return 's';
  }
  if (cls === 'c') {
    if (/^(#|\/\/|--|;|%)/.test(text)) return 'c1';
    if (/^\/\*/.test(text)) return 'cm';
    return 'c';
  }
  if (cls === 'm') {
    if (/^0x/i.test(text)) return 'mh';
    if (/^0b/i.test(text)) return 'mb';
    if (/^0o/i.test(text)) return 'mo';
    if (/^\d+$/.test(text)) return 'mi';
    if (/^[\d_.]+(e[+-]?\d+)?j?$/i.test(text)) return 'mf';
    return 'm';
  }
  return cls;
}

const scopeOf = (classAttr: string): string =>
  classAttr.split(' ').map((c) => c.replace(/^hljs-/, '').replace(/_+$/, '')).join('.');

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');

/**
 * Highlighted HTML for `code` in the fence's language, flat as Pygments' (one class per
 * run, no span across a line end), or undefined when no grammar knows the language.
 */
export function highlightCode(code: string, lang: string): string | undefined {
  const key = lang.toLowerCase();
  const grammar = Object.hasOwn(LANGUAGES, key) ? LANGUAGES[key]![1] : undefined;
  if (!grammar) return undefined;
  // Pygments drops the blank lines a block starts with.
  code = code.replace(/^\n+/, '');
  if (grammar === 'tex') return texHighlight(code);
  const html = highlighter().highlight(code, { language: grammar, ignoreIllegals: true }).value;
  // A token tree: each text run takes the class of its innermost mapped scope.
  const stack: Array<string | undefined> = [];
  const runs: Array<{ cls: string | undefined; text: string }> = [];
  const TOKEN = /<span class="([^"]*)">|<\/span>|[^<]+/g;
  let m: RegExpExecArray | null;
  while ((m = TOKEN.exec(html)) !== null) {
    if (m[1] !== undefined) {
      const parent = stack[stack.length - 1];
      const own = CLASSES[scopeOf(m[1])];
      // Inside a preprocessor line Pygments marks keywords as it (cp) and file names cpf.
      stack.push(parent === 'cp' || parent === 'cpf' ? (own === 's' ? 'cpf' : 'cp') : own ?? parent);
    } else if (m[0] === '</span>') {
      stack.pop();
    } else {
      runs.push({ cls: stack[stack.length - 1], text: unescape(m[0]) });
    }
  }
  // Refine on each token's whole text (a string split by an escape is still one string).
  let out = '';
  for (const run of mergeRuns(grammar === 'python' ? pythonRuns(runs) : runs)) {
    const cls = run.cls && refine(run.cls, run.text);
    for (const [i, line] of run.text.split('\n').entries()) {
      if (i > 0) out += '\n';
      if (line === '') continue;
      out += cls ? `<span class="${cls}">${escapeHtml(line)}</span>` : escapeHtml(line);
    }
  }
  return out;
}

function mergeRuns(runs: Array<{ cls: string | undefined; text: string }>): Array<{ cls: string | undefined; text: string }> {
  const out: Array<{ cls: string | undefined; text: string }> = [];
  for (const r of runs) {
    const last = out[out.length - 1];
    if (last && last.cls === r.cls) last.text += r.text;
    else out.push({ ...r });
  }
  return out;
}

// Pygments' Python lexer marks what highlight.js leaves plain: names (n; self and cls are bp),
// operators (o) and punctuation (p); and a first-line `#!` comment is a hashbang (ch).
const PY_PLAIN = /(\s+)|([A-Za-z_][A-Za-z0-9_]*)|(!=|==|<<|>>|<=|>=|:=|\*\*|\/\/|->|[-~+/*%=<>&^|.@])|([()[\]{}:,;])|([\s\S])/g;
const PY_PSEUDO = new Set(['self', 'cls', 'Ellipsis', 'NotImplemented']);

function pythonRuns(runs: Array<{ cls: string | undefined; text: string }>): Array<{ cls: string | undefined; text: string }> {
  const out: Array<{ cls: string | undefined; text: string }> = [];
  for (const [i, run] of runs.entries()) {
    if (run.cls !== undefined) {
      out.push(i === 0 && run.cls === 'c' && run.text.startsWith('#!') ? { cls: 'ch', text: run.text } : run);
      continue;
    }
    PY_PLAIN.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = PY_PLAIN.exec(run.text)) !== null) {
      const cls = m[1] !== undefined ? undefined : m[2] !== undefined ? (PY_PSEUDO.has(m[2]) ? 'bp' : 'n') : m[3] !== undefined ? 'o' : m[4] !== undefined ? 'p' : undefined;
      out.push({ cls, text: m[0] });
    }
  }
  return out;
}

// Codehilite's guess for a fence without a language: a first line `#!python`,
// `#!/usr/bin/python` or `:::python` names it (the line stays in the code).
const FIRST_LINE_LANG = /^(?:::+|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/;

/** The language a fence without one names on its first line, if a grammar knows it. */
export function firstLineLanguage(code: string): string | undefined {
  const lang = FIRST_LINE_LANG.exec(code)?.[1]?.toLowerCase();
  return lang && Object.hasOwn(LANGUAGES, lang) && LANGUAGES[lang]![1] ? lang : undefined;
}

// TeX, as Pygments' lexer marks it (highlight.js's LaTeX grammar is not loaded): commands k,
// braces and the alignment and script characters nb, comments c.
const TEX = /(%[^\n]*)|(\\(?:[A-Za-z@]+|[^A-Za-z@\n]))|([{}&_^]+)|([^%\\{}&_^]+|[\s\S])/g;

function texHighlight(code: string): string {
  let out = '';
  TEX.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TEX.exec(code)) !== null) {
    const cls = m[1] !== undefined ? 'c' : m[2] !== undefined ? 'k' : m[3] !== undefined ? 'nb' : undefined;
    out += cls ? `<span class="${cls}">${escapeHtml(m[0])}</span>` : escapeHtml(m[0]);
  }
  return out;
}
