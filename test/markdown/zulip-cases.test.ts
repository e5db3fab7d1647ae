import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderMarkdown, type RenderContext } from '../../src/markdown/index.js';

/**
 * Zulip's own markdown fixture (test/fixtures/zulip-markdown/, see its README) rendered by
 * Parley. The cases Parley still renders differently are listed, with the construct each needs,
 * in zulip-cases.known-different.json: a case off the list that differs is a regression, and a
 * case on the list that now matches must leave it, so the list only shrinks.
 */
interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  backend_only_rendering?: boolean;
  translate_emoticons?: boolean;
  ignore?: boolean;
}
interface Fixture { regular_tests: RegularCase[]; linkify_tests: Array<[string, string, string]> }

const here = new URL('.', import.meta.url);
const fixture = JSON.parse(readFileSync(new URL('../fixtures/zulip-markdown/markdown_test_cases.json', here), 'utf8')) as Fixture;
const knownDifferent = JSON.parse(readFileSync(new URL('zulip-cases.known-different.json', here), 'utf8')) as Record<string, string>;

// The context of Zulip's test realm, as far as these cases use it: no user, group, stream or
// linkifier appears in them; the realm's "zulip" emoji is an image emoji in every Zulip realm.
const rctx: RenderContext = {
  userByName: () => [],
  userById: () => undefined,
  groupByName: () => undefined,
  streamByName: () => undefined,
  linkifiers: [],
  customEmojiUrl: (name) => (name === 'zulip' ? '/static/generated/emoji/images/emoji/unicode/zulip.png' : undefined),
};

/** Why a case cannot apply to Parley's renderer (undefined: it applies). */
function notApplicable(c: RegularCase): string | undefined {
  if (c.ignore) return 'Zulip ignores it';
  // A per-user setting Zulip passes to its renderer; Parley's render context has no such input.
  if (c.translate_emoticons !== undefined) return 'needs the translate_emoticons user setting';
  // Zulip rewrites links to its own host (zulip.testserver in its tests) into fragment links.
  if (c.input.includes('zulip.testserver')) return "needs the realm's host (zulip.testserver)";
  return undefined;
}

interface Case { name: string; input: string; expected: string; na?: string }

// Zulip's test_linkify builds the expected HTML of each linkify case from the URL it names.
function linkified(template: string, url: string): string {
  if (!template.includes('%s')) return template;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return template.replace('%s', `<a href="${href}">${url}</a>`);
}

const cases: Case[] = [
  ...fixture.regular_tests.map((c) => ({ name: c.name, input: c.input, expected: c.expected_output, na: notApplicable(c) })),
  ...fixture.linkify_tests.map(([input, template, url]) => ({
    name: `linkify: ${input}`, input, expected: linkified(template, url),
    na: input.includes('zulip.testserver') ? "needs the realm's host (zulip.testserver)" : undefined,
  })),
];

/** Whitespace runs collapsed (and none between tags), attributes in name order. */
function normalise(html: string): string {
  return html
    .replace(/<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*")?)+)\s*(\/?)>/g, (_m, tag: string, attrs: string, slash: string) => {
      const list = attrs.match(/[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*")?/g) ?? [];
      return `<${tag} ${[...list].sort().join(' ')}${slash}>`;
    })
    .replace(/\s+/g, ' ')
    .replace(/>\s+</g, '><')
    .trim();
}

test('Zulip markdown fixtures: the share rendered identically, and no case changes status unannounced', () => {
  const applicable = cases.filter((c) => c.na === undefined);
  const different: string[] = [];
  for (const c of applicable) {
    const html = normalise(renderMarkdown(c.input, rctx).html);
    const expected = normalise(c.expected);
    if (html !== expected) different.push(c.name);
  }
  const same = applicable.length - different.length;
  const pct = (n: number) => ((100 * n) / applicable.length).toFixed(1);
  console.log(`Zulip markdown fixtures: ${same}/${applicable.length} applicable cases identical (${pct(same)}%); `
    + `${cases.length - applicable.length} not applicable`);

  const known = new Set(Object.keys(knownDifferent));
  const regressions = different.filter((n) => !known.has(n));
  const fixed = [...known].filter((n) => !different.includes(n));
  if (fixed.length > 0) console.log(`Now identical, remove from zulip-cases.known-different.json: ${JSON.stringify(fixed)}`);
  if (regressions.length > 0) console.log(`Newly different: ${JSON.stringify(regressions)}`);
  assert.deepEqual(regressions, [], 'cases that used to render as Zulip does no longer do');
  assert.deepEqual(fixed, [], 'cases listed as different now match: take them off the list');
});

test('Zulip markdown fixtures: every listed case exists, and no not-applicable case is listed', () => {
  const byName = new Map(cases.map((c) => [c.name, c]));
  for (const name of Object.keys(knownDifferent)) {
    assert.ok(byName.has(name), `no fixture case named ${name}`);
    assert.equal(byName.get(name)!.na, undefined, `${name} is not applicable`);
  }
});

test('the normaliser collapses whitespace and orders attributes, and nothing else', () => {
  assert.equal(normalise('<p>\n<a title="t" href="h">x  y</a>\n</p>'), '<p><a href="h" title="t">x y</a></p>');
  assert.notEqual(normalise('<p>a</p>'), normalise('<p>b</p>'));
});
