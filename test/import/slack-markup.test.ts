import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertSlackMarkup } from '../../src/import/slack/markup.js';

const ctx = {
  people: new Map([
    ['U1', { id: 1, fullName: 'Alice Owner', name: 'alice' }],
    ['U2', { id: 2, fullName: 'Bob Admin', name: 'bob' }],
  ]),
  channelNames: new Map([['C1', 'general'], ['C2', 'random']]),
};

// [Slack text, Zulip markdown, mentioned ids, has a link]
const CASES: [string, string, number[], boolean][] = [
  ['plain text', 'plain text', [], false],
  ['*bold* and _italic_ and ~strike~', '**bold** and *italic* and ~~strike~~', [], false],
  ['(*bold*) "_it_"', '(**bold**) "*it*"', [], false],
  ['a*b*c snake_case_name x~y~z', 'a*b*c snake_case_name x~y~z', [], false],
  ['*two words* here\n_next line_', '**two words** here\n*next line*', [], false],
  ['`*code*`', '`*code*`', [], false],
  ['hi <@U1>', 'hi @**Alice Owner**', [1], false],
  ['<@U2|bob>, <@U1|alice>!', '@**Bob Admin**, @**Alice Owner**!', [2, 1], false],
  ['<@U2|notbob> <@U9>', '<@U2|notbob> <@U9>', [], false],
  ['<!here> <!channel> <!everyone>', '@**all** @**all** @**all**', [], false],
  ['see <#C2|random> and <#C1>', 'see #**random** and #**general**', [], false],
  ['<#C2|renamed> <#C9|gone>', '<#C2|renamed> <#C9|gone>', [], false],
  ['go to <https://example.com/a?b=1|the site>', 'go to [the site](https://example.com/a?b=1)', [], true],
  ['<https://example.com/x>', 'https://example.com/x', [], true],
  ['<http://www.zulip.org|zulip>', '[zulip](http://www.zulip.org)', [], true],
  ['mail <mailto:a@example.com|a@example.com> or <b@example.com>', 'mail mailto:a@example.com or b@example.com', [], true],
  ['a &amp; b &lt;tag&gt; &amp;lt;', 'a & b <tag> &lt;', [], false],
  ['&lt;@U1&gt;', '<@U1>', [], false],
  ['*<@U1>* said', '**@**Alice Owner**** said', [1], false],
];

test('Slack markup converts to Zulip markdown as Zulip converts it', () => {
  for (const [slack, zulip, mentioned, hasLink] of CASES) {
    assert.deepEqual(convertSlackMarkup(slack, ctx), { content: zulip, mentioned, hasLink }, slack);
  }
});
