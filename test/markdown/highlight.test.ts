import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, EMPTY_CONTEXT, type RenderContext } from '../../src/markdown/index.js';
import { withinAllowList } from '../../src/markdown/sanitize.js';

// Code blocks as Zulip's Pygments renders them: the codehilite wrapper, data-code-language
// with Pygments' name for the language, and Pygments' short classes on the tokens.
const block = (lang: string | undefined, code: string) =>
  `<div class="codehilite"${lang ? ` data-code-language="${lang}"` : ''}><pre><span></span><code>${code}</code></pre></div>`;
const render = (src: string, rctx: RenderContext = EMPTY_CONTEXT) => renderMarkdown(src, rctx).html;

test('python: keywords, function and class names, strings by quote, numbers, comments, builtins; names, operators and punctuation as Pygments marks them', () => {
  assert.equal(render('```python\ndef f(x):\n    return x * 2 + 0x1f  # twice\nclass A(B): pass\nprint(\'a\', "b", 1.5)\n```'), block('Python',
    '<span class="k">def</span> <span class="nf">f</span><span class="p">(</span><span class="n">x</span><span class="p">):</span>\n'
    + '    <span class="k">return</span> <span class="n">x</span> <span class="o">*</span> <span class="mi">2</span> <span class="o">+</span> <span class="mh">0x1f</span>  <span class="c1"># twice</span>\n'
    + '<span class="k">class</span> <span class="nc">A</span><span class="p">(</span><span class="nc">B</span><span class="p">):</span> <span class="k">pass</span>\n'
    + '<span class="nb">print</span><span class="p">(</span><span class="s1">&#39;a&#39;</span><span class="p">,</span> <span class="s2">&quot;b&quot;</span><span class="p">,</span> <span class="mf">1.5</span><span class="p">)</span>\n'));
});

test('a fence without a language takes one from a #! or ::: first line; TeX highlights as Pygments does', () => {
  assert.equal(render('```\n#!python\nself\n```'), '<div class="codehilite"><pre><span></span><code><span class="ch">#!python</span>\n<span class="bp">self</span>\n</code></pre></div>');
  assert.equal(render('```\n#!nothing\n```'), '<div class="codehilite"><pre><span></span><code>#!nothing\n</code></pre></div>');
  assert.equal(render('```latex\n\n\\frac{a}{b} % c\n```'), block('TeX', '<span class="k">\\frac</span><span class="nb">{</span>a<span class="nb">}{</span>b<span class="nb">}</span> <span class="c">% c</span>\n'));
});

test('aliases name the same Pygments language; a token across lines is split per line as Pygments does', () => {
  assert.match(render('```js\nconst a = 1; // x\n```'), /^<div class="codehilite" data-code-language="JavaScript">.*<span class="k">const<\/span> a = <span class="mi">1<\/span>; <span class="c1">\/\/ x<\/span>/s);
  assert.match(render('```ts\nlet x: number;\n```'), /data-code-language="TypeScript"/);
  assert.match(render('```c++\nint x;\n```'), /data-code-language="C\+\+".*<span class="kt">int<\/span>/s);
  assert.equal(render('```python\n"""one\ntwo"""\n```'), block('Python', '<span class="s2">&quot;&quot;&quot;one</span>\n<span class="s2">two&quot;&quot;&quot;</span>\n'));
  assert.match(render('```c\n#include <stdio.h>\n/* c */\n```'), /<span class="cp">#include <\/span><span class="cpf">&lt;stdio.h&gt;<\/span>\n<span class="cm">\/\* c \*\/<\/span>/);
});

test('unknown languages and text stay plain and escaped; the name typed is kept', () => {
  assert.equal(render('```inventedlanguage\n<b>&</b>\n```'), block('inventedlanguage', '&lt;b&gt;&amp;&lt;/b&gt;\n'));
  assert.equal(render('```text\nif x\n```'), block('Text only', 'if x\n'));
  assert.equal(render('```\nif x\n```'), block(undefined, 'if x\n'));
  assert.equal(render('```constructor\nx\n```'), block('constructor', 'x\n'));
});

test("the organization's default_code_block_language applies to fences without a language, not to indented code", () => {
  const rctx = { ...EMPTY_CONTEXT, defaultCodeBlockLanguage: 'python' };
  assert.equal(render('```\nx = 1\n```', rctx), block('Python', '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n'));
  assert.equal(render('```text\nx = 1\n```', rctx), block('Text only', 'x = 1\n'));
  assert.equal(render('    x = 1', rctx), block(undefined, 'x = 1\n'));
  // As in Zulip, the default stands for the fence's language before quote and spoiler are told apart.
  assert.equal(render('```\nhi\n```', { ...EMPTY_CONTEXT, defaultCodeBlockLanguage: 'quote' }), '<blockquote>\n<p>hi</p>\n</blockquote>');
});

test('highlighted output stays inside the allow-list, whatever the code holds', () => {
  for (const lang of ['python', 'js', 'html', 'sql', 'bash', 'json', 'yaml', 'markdown', 'rust', 'go']) {
    const html = render(`\`\`\`${lang}\n<script>alert("x")</script> ' " & </span><span class="x"> \${a} /* */ # -- \n\`\`\``);
    assert.ok(withinAllowList(html), html);
    assert.ok(!html.includes('<script'), html);
  }
});
