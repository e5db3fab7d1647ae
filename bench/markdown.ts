/**
 * `npm run bench -- markdown`: renders per second for typical short and long messages
 * (markdown-it, Zulip rules, allow-list check), single core.
 */
import { renderMarkdown, type RenderContext } from '../src/markdown/index.js';

const users = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, full_name: `User ${i + 1}`, email: `u${i + 1}@x.test` }));
const byName = new Map(users.map((u) => [u.full_name.toLowerCase(), [u]]));
const rctx: RenderContext = {
  userByName: (n) => byName.get(n.toLowerCase()) ?? [],
  userById: (id) => users[id - 1],
  groupByName: () => undefined,
  streamByName: (n) => (n === 'general' ? { id: 1, name: 'general' } : undefined),
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', url_template: 'https://tracker.example.com/{id}' }],
};
const CASES: Array<[string, string]> = [
  ['plain sentence', 'Sounds good, I will take a look after lunch.'],
  ['short with mention, emoji, link', 'Hello @**User 42**, the **build** is green :tada: see https://ci.example.com/42 and #1234'],
  ['unicode emoji', 'Ship it \u{1f680}\u{1f680} \u2764\ufe0f'],
  ['long (code, quote, list)', `${'Some context with *emphasis* and `code`.\n\n'.repeat(5)}\`\`\`python\n${'def f(x):\n    return x * 2\n'.repeat(20)}\`\`\`\n\n> quoted reply\n\n${'* item with [link](https://example.com)\n'.repeat(10)}`],
];
for (const [label, content] of CASES) {
  for (let i = 0; i < 2000; i++) renderMarkdown(content, rctx);
  const n = label.startsWith('long') ? 3000 : 20000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) renderMarkdown(content, rctx);
  const us = ((performance.now() - t0) * 1000) / n;
  process.stdout.write(`${label.padEnd(36)} ${String(Math.round(1e6 / us)).padStart(7)} renders/s  ${us.toFixed(1).padStart(7)} µs each  (${content.length} chars)\n`);
}
