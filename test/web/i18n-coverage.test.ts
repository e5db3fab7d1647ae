/**
 * Keeps the web app translatable and its German complete, without a browser:
 * - every JSX text and every user-facing string attribute (aria-label, title, placeholder,
 *   label, alt) in web/src/**\/*.tsx goes through t()/tn(): a literal there fails;
 * - every t('…') / tn('…', '…') key in web/src has a German entry in web/src/locales/de/*.json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { emojiCatalog } from '../../src/emoji/catalog.js';

const CUSTOM = 'Custom'; // web/src/emoji.ts

const SRC = path.resolve('web/src');
/** Being replaced by another package (issue 35's web-streams): not scanned until it lands. */
const SKIP = new Set<string>([]);
/** Texts that are no words: symbols, punctuation, keys. */
const ALLOWED = new Set(['#', '?', '🔒', '×', '✕', '…', '·', '—', '-', '/', ':', ',', '(', ')', '★', '☆', '⋯', '+', '@', '>', '*', '😀', '☰', '✓']);

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out.sort();
}

const ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'label', 'alt', 'aria-placeholder', 'aria-roledescription']);
/** A word: two letters in a row (so "#", "?" or "3" are no words). */
// Examples of code in placeholders (an emoji name, a pattern, a URL template) are not prose.
const isCode = (s: string) => /^\S+$/.test(s.trim()) && /[_/%#()<>[\]]/.test(s);
const isWords = (s: string) => /\p{L}{2}/u.test(s) && !ALLOWED.has(s.trim()) && !isCode(s);

const COMPARISONS = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

/** The untranslated strings of one .tsx file, as `file:line: text`. */
function untranslated(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: string[] = [];
  const where = (n: ts.Node) => `${path.relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  /** A string literal shown as a JSX child: `{x ? 'Yes' : 'No'}` (not one inside a call such as t()). */
  const shownLiteral = (n: ts.Node): boolean => {
    for (let p = n.parent; p; p = p.parent) {
      if (ts.isCallExpression(p) || ts.isJsxAttribute(p) || ts.isElementAccessExpression(p) || ts.isBinaryExpression(p) && p.operatorToken.kind !== ts.SyntaxKind.QuestionQuestionToken && p.operatorToken.kind !== ts.SyntaxKind.BarBarToken && p.operatorToken.kind !== ts.SyntaxKind.AmpersandAmpersandToken) return false;
      if (ts.isJsxExpression(p)) return ts.isJsxElement(p.parent) || ts.isJsxFragment(p.parent);
      if (!ts.isConditionalExpression(p) && !ts.isParenthesizedExpression(p) && !ts.isBinaryExpression(p)) return false;
    }
    return false;
  };
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n)) {
      const s = n.getText().replace(/\s+/g, ' ').trim();
      if (s && isWords(s)) out.push(`${where(n)}: ${s}`);
    } else if (ts.isJsxAttribute(n) && n.initializer && ATTRIBUTES.has(n.name.getText())) {
      const init = n.initializer;
      if (ts.isStringLiteral(init) && isWords(init.text)) out.push(`${where(n)}: ${n.name.getText()}="${init.text}"`);
      if (ts.isJsxExpression(init) && init.expression) {
        const literals: ts.Node[] = [];
        const find = (m: ts.Node) => {
          if (ts.isCallExpression(m)) return;
          // `kind === 'create' ? t(...) : ...`: a compared value is never shown.
          if (ts.isBinaryExpression(m) && COMPARISONS.has(m.operatorToken.kind)) return;
          if ((ts.isStringLiteral(m) || ts.isNoSubstitutionTemplateLiteral(m)) && isWords(m.text)) literals.push(m);
          else if (ts.isTemplateExpression(m) && isWords(m.head.text + m.templateSpans.map((x) => x.literal.text).join(''))) literals.push(m);
          else m.forEachChild(find);
        };
        find(init.expression);
        for (const m of literals) out.push(`${where(m)}: ${n.name.getText()}={${m.getText()}}`);
      }
    } else if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && isWords(n.text) && shownLiteral(n)) {
      out.push(`${where(n)}: {${n.getText()}}`);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

test('every JSX text and label of the web app goes through t()', () => {
  const found = files(SRC, /\.tsx$/)
    .filter((f) => !SKIP.has(path.relative(SRC, f).split(path.sep).join('/')))
    .flatMap(untranslated);
  assert.deepEqual(found, [], `strings not passed through t():\n${found.join('\n')}`);
});

test('the scan finds literal texts and labels (it is no empty check)', () => {
  const tmp = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'i18n-')), 'X.tsx');
  fs.writeFileSync(tmp, `export const X = (p: { a: boolean }) => <div title="Hello there" aria-label={p.a ? 'Open it' : t('Close')}>
    Some text {p.a ? 'Yes sir' : t('No')} <b>#</b> {t('Fine')}<input placeholder={\`Say \${1}\`} /></div>;`);
  assert.deepEqual(untranslated(tmp).map((s) => s.replace(/^.*?:\d+: /, '')),
    ['title="Hello there"', "aria-label={'Open it'}", 'Some text', "{'Yes sir'}", 'placeholder={`Say ${1}`}']);
});

/** The keys of every t('…') and tn('…', '…') with literal English in web/src. */
export function usedKeys(): Map<string, string> {
  const keys = new Map<string, string>();
  for (const file of files(SRC, /\.tsx?$/)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true,
      file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const lit = (e: ts.Expression | undefined) => e && (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) ? e.text : undefined;
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
        const name = n.expression.text;
        const where = `${path.relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
        const first = lit(n.arguments[0]);
        if ((name === 't' || name === 'tn' || name === 'tr') && first !== undefined) keys.set(first, where);
        const second = lit(n.arguments[1]);
        if (name === 'tn' && second !== undefined) keys.set(second, where);
      }
      // Help's list of shortcuts is rendered through t(): its keys and descriptions are keys.
      if (ts.isVariableDeclaration(n) && n.name.getText() === 'SHORTCUTS' && n.initializer) {
        const where = path.relative(SRC, file);
        const strings = (m: ts.Node) => { if (ts.isStringLiteral(m)) keys.set(m.text, where); else m.forEachChild(strings); };
        strings(n.initializer);
      }
      n.forEachChild(visit);
    };
    visit(sf);
  }
  return keys;
}

test('every t() key of the web app has its German', () => {
  const de: Record<string, string> = {};
  const dir = path.join(SRC, 'locales/de');
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const catalog = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, string>;
    for (const [k, v] of Object.entries(catalog)) {
      assert.equal(typeof v, 'string', `${f}: ${k}`);
      assert.ok(v.trim(), `${f}: empty German for ${k}`);
      de[k] = v;
    }
  }
  const keys = usedKeys();
  // Shown through t() from data: the emoji picker's categories.
  for (const c of ['Popular', CUSTOM, ...emojiCatalog().categories]) keys.set(c, 'emoji categories');
  assert.ok(keys.size > 300, `found only ${keys.size} keys: the scan is broken`);
  const missing = [...keys].filter(([k]) => isWords(k) && !(k in de)).map(([k, where]) => `${where}: ${JSON.stringify(k)}`);
  assert.deepEqual(missing, [], `keys without German:\n${missing.join('\n')}`);
  // The placeholders of each German entry are those of its English.
  const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
  const wrong = [...keys.keys()].filter((k) => k in de && names(k) !== names(de[k]!));
  assert.deepEqual(wrong, [], 'German with other placeholders than its English');
});
