import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, EMPTY_CONTEXT } from '../../src/markdown/index.js';

const render = (s: string) => renderMarkdown(s, EMPTY_CONTEXT).html;

test('$$...$$ is KaTeX inline math, and TeX KaTeX refuses shows as typed in a tex-error span', () => {
  const html = render('area $$\\pi r^2$$ here');
  assert.match(html, /^<p>area <span class="katex"><span class="katex-mathml"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML">/);
  assert.ok(html.includes('<annotation encoding="application/x-tex">\\pi r^2</annotation>'), html);
  assert.ok(html.endsWith('</span></span> here</p>'), html);
  assert.equal(render('$$\\error{<b>}$$'), '<p><span class="tex-error">$$\\error{&lt;b&gt;}$$</span></p>');
  // Not math: a word right before, or a single dollar.
  assert.equal(render('a$$x$$'), '<p>a$$x$$</p>');
  assert.equal(render('$5 and $6'), '<p>$5 and $6</p>');
});

test('a math fence renders each paragraph as a displayed formula', () => {
  const html = render('```math\na^2\n\nb^2\n```');
  assert.equal(html.match(/<p><span class="katex-display">/g)?.length, 2, html);
  assert.equal(render('```math\n\\error{x}\n```'), '<p><span class="tex-error">\\error{x}</span></p>');
});

test('KaTeX markup passes the sanitiser untouched, and a typed NUL cannot stand for it', () => {
  assert.ok(render('$$\\sqrt{2}$$').includes('<svg'), 'the square root sign is KaTeX SVG');
  assert.equal(render('\u00000\u0000 $$x$$').startsWith('<p>\ufffd0\ufffd <span class="katex">'), true);
  // KaTeX runs with trust off: \href is no link.
  assert.ok(!render('$$\\href{javascript:alert(1)}{x}$$').includes('href="javascript'));
});
