/**
 * `npm run bench -- markdown`: renders per second for typical short and long messages
 * (markdown-it, Zulip rules, allow-list check), single core; then the same messages with
 * 50 linkifiers configured (the ratio to one linkifier is the figure to watch), and
 * hostile linkifier patterns over text made to make a backtracking engine blow up.
 */
import { renderMarkdown, type RenderContext, type Linkifier } from '../src/markdown/index.js';

const users = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, full_name: `User ${i + 1}`, email: `u${i + 1}@x.test` }));
const byName = new Map(users.map((u) => [u.full_name.toLowerCase(), [u]]));
const context = (linkifiers: Linkifier[]): RenderContext => ({
  userByName: (n) => byName.get(n.toLowerCase()) ?? [],
  userById: (id) => users[id - 1],
  groupByName: () => undefined,
  streamByName: (n) => (n === 'general' ? { id: 1, name: 'general' } : undefined),
  linkifiers,
});
const one: Linkifier[] = [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', url_format: 'https://tracker.example.com/%(id)s' }];
// What a large organization configures: project keys, and a few without a literal prefix.
const fifty: Linkifier[] = [
  ...one,
  ...Array.from({ length: 46 }, (_, i) => ({ id: i + 2, pattern: `PRJ${i}-(?P<id>[0-9]+)`, url_format: `https://jira.example.com/browse/PRJ${i}-%(id)s` })),
  { id: 48, pattern: '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)', url_format: 'https://github.com/%(org)s/%(repo)s/issues/%(id)s' },
  { id: 49, pattern: '[Cc]ommit (?P<sha>[0-9a-f]{7,40})', url_format: 'https://git.example.com/commit/%(sha)s' },
  { id: 50, pattern: '(?i)rfc ?(?P<num>[0-9]+)', url_format: 'https://www.rfc-editor.org/rfc/rfc%(num)s' },
];
const CASES: Array<[string, string]> = [
  ['plain sentence', 'Sounds good, I will take a look after lunch.'],
  ['short with mention, emoji, link', 'Hello @**User 42**, the **build** is green :tada: see https://ci.example.com/42 and #1234'],
  ['unicode emoji', 'Ship it \u{1f680}\u{1f680} \u2764\ufe0f'],
  ['long (code, quote, list)', `${'Some context with *emphasis* and `code`.\n\n'.repeat(5)}\`\`\`python\n${'def f(x):\n    return x * 2\n'.repeat(20)}\`\`\`\n\n> quoted reply\n\n${'* item with [link](https://example.com)\n'.repeat(10)}`],
];

function measure(label: string, content: string, rctx: RenderContext, n: number): number {
  for (let i = 0; i < Math.min(n, 2000); i++) renderMarkdown(content, rctx);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) renderMarkdown(content, rctx);
  const us = ((performance.now() - t0) * 1000) / n;
  process.stdout.write(`${label.padEnd(44)} ${String(Math.round(1e6 / us)).padStart(7)} renders/s  ${us.toFixed(1).padStart(7)} µs each  (${content.length} chars)\n`);
  return us;
}

const ratios: string[] = [];
for (const [label, content] of CASES) {
  const n = label.startsWith('long') ? 3000 : 20000;
  const base = measure(label, content, context(one), n);
  const many = measure(`  … with 50 linkifiers`, content, context(fifty), n);
  ratios.push(`${label}: ${(many / base).toFixed(2)}×`);
}
process.stdout.write(`50 linkifiers / 1: ${ratios.join(', ')}\n`);

// Patterns that take exponential time in a backtracking engine on the text below them.
const hostile: Linkifier[] = [
  { id: 1, pattern: '(?P<id>(a+)+)b', url_format: 'https://x.example.com/%(id)s' },
  { id: 2, pattern: '(?P<id>(a|aa)+)c', url_format: 'https://x.example.com/%(id)s' },
  { id: 3, pattern: '(?P<id>(.*a){12})', url_format: 'https://x.example.com/%(id)s' },
];
// Each pattern's literal is there, so none is skipped unscanned.
const attack = `${'a'.repeat(5000)}! b c`;
measure('hostile patterns, 5,000 chars of "a"', attack, context(hostile), 20);
