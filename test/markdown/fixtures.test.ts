import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderMarkdown, type RenderContext } from '../../src/markdown/index.js';
import { withinAllowList } from '../../src/markdown/sanitize.js';

const users = [
  { id: 7, full_name: 'King Hamlet', email: 'hamlet@zulip.test' },
  { id: 8, full_name: 'Othello', email: 'othello@zulip.test' },
  { id: 9, full_name: 'Twin', email: 'twin1@zulip.test' },
  { id: 10, full_name: 'Twin', email: 'twin2@zulip.test' },
];
const rctx: RenderContext = {
  userByName: (n) => users.filter((u) => u.full_name.toLowerCase() === n.toLowerCase()),
  userById: (id) => users.find((u) => u.id === id),
  groupByName: (n) => (n === 'support' ? { id: 3, name: 'support' } : undefined),
  streamByName: (n) => (n.toLowerCase() === 'verona' ? { id: 9, name: 'Verona' } : n === 'Dev help' ? { id: 12, name: 'Dev help' } : undefined),
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', url_format: 'https://trac.example.com/ticket/%(id)s' }],
};
const emoji = (name: string, code: string) => `<span aria-label="${name.replace(/_/g, ' ')}" class="emoji emoji-${code}" role="img" title="${name.replace(/_/g, ' ')}">:${name}:</span>`;
const link = (href: string, text = href) => `<a href="${href}">${text}</a>`;

// [name, input, expected HTML]; expectations follow Zulip's own markdown fixtures where Zulip defines them.
const FIXTURES: Array<[string, string, string]> = [
  ['empty', '', ''],
  ['paragraph', 'test_input', '<p>test_input</p>'],
  ['emphasis', '**bold** *italic* ~~gone~~', '<p><strong>bold</strong> <em>italic</em> <del>gone</del></p>'],
  ['inline code escapes', '`<&nbsp;>`', '<p><code>&lt;&amp;nbsp;&gt;</code></p>'],
  ['newline is a break', 'a\nb', '<p>a<br>\nb</p>'],
  ['fenced code with language', '```python\ndef f():\n    x = 1\n```', '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="k">def</span> <span class="nf">f</span><span class="p">():</span>\n    <span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n</code></pre></div>'],
  ['fenced code, invented language', '``` inventedlanguage\nx\n```', '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>x\n</code></pre></div>'],
  ['tilde fence, html in code', '~~~\n<h1>stay normal</h1>', '<div class="codehilite"><pre><span></span><code>&lt;h1&gt;stay normal&lt;/h1&gt;\n</code></pre></div>'],
  ['four-space code block', '    def foo(): pass', '<div class="codehilite"><pre><span></span><code>def foo(): pass\n</code></pre></div>'],
  ['quote', '> Hello World!', '<blockquote>\n<p>Hello World!</p>\n</blockquote>'],
  ['fenced quote', 'Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~',
    '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>'],
  ['spoiler', '```spoiler Header\ncontent\n```',
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>Header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>'],
  ['lists', '* One\n* Two\n\n1. x\n2. y', '<ul>\n<li>One</li>\n<li>Two</li>\n</ul>\n<ol>\n<li>x</li>\n<li>y</li>\n</ol>'],
  ['heading', '# Hello world', '<h1>Hello world</h1>'],
  ['heading needs a space', '#Hello world', '<p>#Hello world</p>'],
  ['reference links are not links', 'Hello [world]\n\n[world]: https://google.com', `<p>Hello [world]</p>\n<p>[world]: ${link('https://google.com')}</p>`],
  ['autolink', 'see https://zulip.com/help', `<p>see ${link('https://zulip.com/help')}</p>`],
  ['named link', '[docs](https://zulip.com)', `<p>${link('https://zulip.com', 'docs')}</p>`],
  ['user mention', '@**King Hamlet** hi', '<p><span class="user-mention" data-user-id="7">@King Hamlet</span> hi</p>'],
  ['user mention with id', '@**King Hamlet|7**', '<p><span class="user-mention" data-user-id="7">@King Hamlet</span></p>'],
  ['user mention, name case-insensitive', '@**king hamlet**', '<p><span class="user-mention" data-user-id="7">@King Hamlet</span></p>'],
  ['silent mention', '@_**Othello**', '<p><span class="user-mention silent" data-user-id="8">Othello</span></p>'],
  ['unknown user is bold text', '@**Nobody**', '<p>@<strong>Nobody</strong></p>'],
  ['ambiguous name needs the id', '@**Twin** @**Twin|10**', '<p>@<strong>Twin</strong> <span class="user-mention" data-user-id="10">@Twin</span></p>'],
  ['id with the wrong name is not a mention', '@**Othello|7**', '<p>@<strong>Othello|7</strong></p>'],
  ['wildcards', '@**all** @**everyone** @**stream**', '<p><span class="user-mention" data-user-id="*">@all</span> <span class="user-mention" data-user-id="*">@everyone</span> <span class="user-mention" data-user-id="*">@stream</span></p>'],
  ['silent wildcard', '@_**all**', '<p><span class="user-mention silent" data-user-id="*">all</span></p>'],
  ['quoted mentions are silent', '> @**King Hamlet** and @**all**', '<blockquote>\n<p><span class="user-mention silent" data-user-id="7">King Hamlet</span> and <span class="user-mention silent" data-user-id="*">all</span></p>\n</blockquote>'],
  ['mentions in a quote fence are silent', '```quote\n@**King Hamlet**\n```', '<blockquote>\n<p><span class="user-mention silent" data-user-id="7">King Hamlet</span></p>\n</blockquote>'],
  ['a mention after a quote is not', '> @**Othello**\n\n@**King Hamlet**', '<blockquote>\n<p><span class="user-mention silent" data-user-id="8">Othello</span></p>\n</blockquote>\n<p><span class="user-mention" data-user-id="7">@King Hamlet</span></p>'],
  ['group mention', '@*support*', '<p><span class="user-group-mention" data-user-group-id="3">@support</span></p>'],
  ['silent group mention', '@_*support*', '<p><span class="user-group-mention silent" data-user-group-id="3">support</span></p>'],
  ['stream link', '#**Verona**', '<p><a class="stream" data-stream-id="9" href="/#narrow/stream/9-Verona">#Verona</a></p>'],
  ['stream link with spaces', '#**Dev help**', '<p><a class="stream" data-stream-id="12" href="/#narrow/stream/12-Dev-help">#Dev help</a></p>'],
  ['topic link', '#**Verona>some topic**', '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/stream/9-Verona/topic/some.20topic">#Verona &gt; some topic</a></p>'],
  ['stream the author cannot see', '#**secret**', '<p>#<strong>secret</strong></p>'],
  ['emoji by name', ':smile:, :octopus:', `<p>${emoji('smile', '1f642')}, ${emoji('octopus', '1f419')}</p>`],
  ['unknown emoji name stays text', ':not_an_emoji:', '<p>:not_an_emoji:</p>'],
  ['skin tones are not emoji', ':skin-tone-2:', '<p>:skin-tone-2:</p>'],
  ['unicode emoji', '\u{1f4a9} word \u{1f4a9}', `<p>${emoji('poop', '1f4a9')} word ${emoji('poop', '1f4a9')}</p>`],
  ['unicode emoji with variation selector', 'Black upward arrow \u2b06\ufe0f', `<p>Black upward arrow ${emoji('up', '2b06')}</p>`],
  ['emoji inside emphasis markers', 'Testing *:smiley*: :sm*iley*: Testing', '<p>Testing <em>:smiley</em>: :sm<em>iley</em>: Testing</p>'],
  ['/me', '/me waves', '<p>/me waves</p>'],
  ['linkifier', 'fixes #1234', `<p>fixes ${link('https://trac.example.com/ticket/1234', '#1234')}</p>`],
  ['linkifier needs a boundary', 'a#1234', '<p>a#1234</p>'],
  ['no linkifier inside code', '`#1234`', '<p><code>#1234</code></p>'],
  ['html is escaped', '<h1>stay normal</h1> thanks', '<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>'],
  ['script is escaped', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
  ['nested script', '<<script>script>evil()<</script>/script>', '<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>'],
  ['event handler attribute', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
  ['a fence named like an Object method is just a name', '```constructor\nx\n```', '<div class="codehilite" data-code-language="constructor"><pre><span></span><code>x\n</code></pre></div>'],
  ['javascript: link is not a link', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
  ['data: link is not a link', '[x](data:text/html;base64,PHNjcmlwdD4=)', '<p>[x](data:text/html;base64,PHNjcmlwdD4=)</p>'],
  ['quote inside attribute position', '[x](https://a.com/"onmouseover="alert(1))', `<p>${link('https://a.com/%22onmouseover=%22alert(1)', 'x')}</p>`],
  // Where Zulip's dialect departs from CommonMark (Zulip's fixtures name most of these cases).
  ['underscores never emphasise', '_foo_ and __bar__ but *it* and **bold**', '<p>_foo_ and __bar__ but <em>it</em> and <strong>bold</strong></p>'],
  ['bare domains link', 'see example.com or www.zulip.org', `<p>see ${link('http://example.com', 'example.com')} or ${link('http://www.zulip.org', 'www.zulip.org')}</p>`],
  ['a link ends before a trailing colon', 'from http://supervisord.org/running.html: ok', `<p>from ${link('http://supervisord.org/running.html')}: ok</p>`],
  ['telephone link', '[call me](tel:+14155551234)', `<p>${link('tel:+14155551234', 'call me')}</p>`],
  ['link without text shows its URL', '[](https://github.com)', `<p>${link('https://github.com')}</p>`],
  ['link with an unknown scheme stays text', '[foo](itms://itunes.apple.com/app)', '<p>[foo](itms://itunes.apple.com/app)</p>'],
  ['javascript link stays text', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
  ['a long malformed fence line is a paragraph', `\`\`\`${'a'.repeat(5000)}~`, `<p>\`\`\`${'a'.repeat(5000)}~</p>`],
  ['malformed fence is a paragraph', '~~~~~~~~xxxxxxxxx:  [something] ~~~~~~', '<p>~~~~~~~~xxxxxxxxx:  [something] ~~~~~~</p>'],
  ['a fence language in braces', '```{python}\nx = 1\n```', '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n</code></pre></div>'],
  ['fence language after a dot', '~~~~.python\nx = 1\n~~~~', '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n</code></pre></div>'],
  ['a ZWJ sequence is never split into its parts', 'shrug \u{1f937}\u200d\u2640\ufe0f ok', '<p>shrug \u{1f937}\u200d\u2640\ufe0f ok</p>'],
  ['two spaces nest a list item', '* one\n  * two\n    * three\n* four', '<ul>\n<li>one<ul>\n<li>two<ul>\n<li>three</li>\n</ul>\n</li>\n</ul>\n</li>\n<li>four</li>\n</ul>'],
  ['mixed bullets make one list', '* a\n- b\n+ c', '<ul>\n<li>a</li>\n<li>b</li>\n<li>c</li>\n</ul>'],
  ['list-like lines in a code fence stay as typed', '```\n- a\n  + b\n```', '<div class="codehilite"><pre><span></span><code>- a\n  + b\n</code></pre></div>'],
  ['a thematic break is not a bullet', '- - -', '<hr>'],
  ['a global time with a zone offset', '<time:2024-03-01T10:00:00+02:00>', '<p><time datetime="2024-03-01T08:00:00Z">2024-03-01T10:00:00+02:00</time></p>'],
  ['a global time in words with a zone abbreviation', '<time:1 March 2024 9:15 pm PST>', '<p><time datetime="2024-03-02T05:15:00Z">1 March 2024 9:15 pm PST</time></p>'],
  ['a global time that is none', '<time:tomorrow>', '<p><span class="timestamp-error">Invalid time format: tomorrow</span></p>'],
  ['file names are not bare domains', 'see views.py and zulip.com', '<p>see views.py and <a href="http://zulip.com">zulip.com</a></p>'],
  ['a nested ordered list keeps a two-digit start', '1. a\n  10. b', '<ol>\n<li>a<ol start="10">\n<li>b</li>\n</ol>\n</li>\n</ol>'],
  ['double quotes in text stay as typed', '"quoted" & <b>', '<p>"quoted" &amp; &lt;b&gt;</p>'],
  ['a bare > is text', '>', '<p>&gt;</p>'],
  ['inline code keeps its spaces', 'run ` x ` now', '<p>run <code> x </code> now</p>'],
  ['strikethrough as Zulip: spaces inside, never in a run of tildes', '~~ a ~~ ~~~b~~~', '<p><del> a </del> ~~~b~~~</p>'],
  ['emphasis never spans a line', '**a\nb**', '<p>**a<br>\nb**</p>'],
  ['***a*** is strong around emphasis', '***a***', '<p><strong><em>a</em></strong></p>'],
  ['animal emoji take Zulip names', ':cat:\n:dog:', `<p>${emoji('cat', '1f408')}<br>\n${emoji('dog', '1f415')}</p>`],
];

for (const [name, input, expected] of FIXTURES) {
  test(`markdown: ${name}`, () => {
    assert.equal(renderMarkdown(input, rctx).html, expected);
  });
}

test('mentions, wildcards, groups and links are reported for flags and has: narrows', () => {
  const r = renderMarkdown('@**King Hamlet** @_**Othello** @**all** @*support* https://x.com/a.png [f](/user_uploads/1/ab/f.pdf)', rctx);
  assert.deepEqual([...r.mentionedUserIds], [7]);
  assert.equal(r.wildcardMentioned, true);
  assert.deepEqual([...r.mentionedGroupIds], [3]);
  assert.equal(r.hasLink, true);
  assert.equal(r.hasImage, true);
  assert.equal(r.hasAttachment, true);
  const quoted = renderMarkdown('> @**King Hamlet** @**all**\n\n```quote\n@**Othello**\n```\n\n```spoiler\n@**Othello**\n```', rctx);
  // Quoting notifies nobody; a spoiler is not a quote.
  assert.deepEqual([...quoted.mentionedUserIds], [8]);
  assert.equal(quoted.wildcardMentioned, false);
  const silent = renderMarkdown('@_**all** plain', rctx);
  assert.equal(silent.wildcardMentioned, false);
  assert.equal(silent.hasLink, false);
});

test('/me is a me-message only on one line', () => {
  assert.equal(renderMarkdown('/me waves', rctx).isMeMessage, true);
  assert.equal(renderMarkdown('/me waves\nagain', rctx).isMeMessage, false);
  assert.equal(renderMarkdown('hi /me', rctx).isMeMessage, false);
});

test('deeply nested quote fences and unclosed fences render without failing', () => {
  const nested = `${'```quote\n'.repeat(200)}deep${'\n```'.repeat(200)}`;
  assert.ok(renderMarkdown(nested, rctx).html.length > 0);
  assert.match(renderMarkdown('```\nnever closed', rctx).html, /never closed/);
  assert.ok(renderMarkdown('>'.repeat(5000), rctx).html.length > 0);
});

test('property: any input renders without throwing, and the output stays inside the allow-list', () => {
  const pieces = fc.constantFrom('<script>', '</script>', '<img src=x onerror=alert(1)>', 'javascript:alert(1)', '[a](', ')', '**', '*', '`', '```', '~~~',
    '\n', '> ', '@**', '@*', '#**', ':smile:', '|7', 'King Hamlet', '"', "'", '&', '<', '>', 'https://x.com/"><b>', '#1234', '\u{1f4a9}', ' ');
  fc.assert(fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 40 }), (parts) => {
    const html = renderMarkdown(parts.join(''), rctx).html;
    assert.ok(withinAllowList(html), html);
    assert.ok(!/<script/i.test(html), html);
    assert.ok(!/\son[a-z]+=/i.test(html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/>[^<]*</g, '><')), html);
    assert.ok(!/href="\s*javascript:/i.test(html), html);
  }), { numRuns: 400 });
});

test('the allow-list check refuses what a browser would run', () => {
  for (const bad of ['<a href="javascript:alert(1)">x</a>', '<a href="java&#x09;script:alert(1)">x</a>', '<a href="javascript&#x3A;alert(1)">x</a>',
    '<a href="//evil.com">x</a>', '<img src="x">', '<span onclick="x()">x</span>', '<p style="color:red">x</p>', '<div class="x" onmouseover="y">',
    '<a href="data:text/html,x">x</a>', '<img class="emoji" src="javascript:x">', '<img alt="x" class="emoji" src="//evil.com/x.png">', '<iframe src="https://x.com"></iframe>', '<a href="vbscript:x">x</a>']) {
    assert.equal(withinAllowList(bad), false, bad);
  }
  for (const good of ['<p>x</p>', '<a href="https://x.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer" title="t">x</a>', '<a href="/#narrow/stream/9-x">x</a>',
    '<span class="emoji emoji-1f642" role="img" title="smile" aria-label="smile">:smile:</span>',
    '<img alt=":parrot:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="parrot">']) {
    assert.equal(withinAllowList(good), true, good);
  }
});
