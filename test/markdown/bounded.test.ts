import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderMarkdown, type RenderContext } from '../../src/markdown/index.js';
import { contextOfSnapshot, snapshotContext } from '../../src/markdown/snapshot.js';
import { closeRenderPool, renderMessage, rendersInline, setRenderLimits } from '../../src/markdown/bounded.js';

const users = [
  { id: 7, full_name: 'King Hamlet', email: 'hamlet@zulip.test' },
  { id: 9, full_name: 'Twin', email: 'twin1@zulip.test' },
  { id: 10, full_name: 'Twin', email: 'twin2@zulip.test' },
];
const rctx: RenderContext = {
  userByName: (n) => users.filter((u) => u.full_name.toLowerCase() === n.toLowerCase()),
  userById: (id) => users.find((u) => u.id === id),
  groupByName: (n) => (n === 'support' ? { id: 3, name: 'support', members: [7] } : undefined),
  streamByName: (n) => (n.toLowerCase() === 'verona' ? { id: 9, name: 'Verona' } : undefined),
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', url_format: 'https://trac.example.com/ticket/%(id)s' }],
  defaultCodeBlockLanguage: 'python',
  customEmojiUrl: (n) => (n === 'parrot' ? '/user_avatars/1/emoji/parrot.png' : undefined),
};
const SAMPLE = '@**King Hamlet** @_**twin|10** @*support* @_*support* #**Verona>lunch** #**verona** :parrot: :octopus: #1234 **b** @**all**\n```\nx = 1\n```';

after(() => closeRenderPool());

test('a render from a snapshot of the context equals the render with the context itself', () => {
  const direct = renderMarkdown(SAMPLE, rctx);
  assert.match(direct.html, /user-mention.*user-group-mention.*stream-topic.*parrot\.png.*emoji-1f419.*ticket\/1234/s);
  assert.deepEqual(renderMarkdown(SAMPLE, contextOfSnapshot(snapshotContext(SAMPLE, rctx))), direct);
});

test('property: the snapshot answers every lookup the renderer makes, on generated text', () => {
  const pieces = ['@', '@_', '**', '*', '#**', '>', ':', 'parrot', 'octopus', 'King Hamlet', 'Twin', 'twin|10', 'support', 'Verona', 'lunch', '|7', ' ', '\n', 'x', '```', '#12', 'all'];
  fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), (parts) => {
    const s = parts.join('');
    assert.deepEqual(renderMarkdown(s, contextOfSnapshot(snapshotContext(s, rctx))), renderMarkdown(s, rctx));
  }), { numRuns: 500 });
});

test('short plain text renders inline; long text and fenced code go to the pool', () => {
  assert.equal(rendersInline('hello @**King Hamlet**'), true);
  assert.equal(rendersInline('x'.repeat(5000)), false);
  assert.equal(rendersInline('```\nx\n```'), false);
  assert.equal(rendersInline('costs what its TeX costs: $$x^2$$'), false);
});

test('the pool renders exactly what an inline render gives, Sets and flags included', async () => {
  setRenderLimits({ inlineMaxChars: 0 });
  try {
    const pooled = await renderMessage(SAMPLE, rctx);
    assert.deepEqual(pooled, renderMarkdown(SAMPLE, rctx));
    assert.deepEqual([...pooled.mentionedUserIds].sort(), [7]);
    assert.equal(pooled.wildcardMentioned, true);
  } finally {
    setRenderLimits({ inlineMaxChars: 1000 });
  }
});

test('a render that spends its time budget is refused with Zulip\'s "Unable to render message", and the pool still serves', async () => {
  const big = `${'word '.repeat(400)}@**King Hamlet**`;
  assert.equal((await renderMessage(big, rctx)).html, renderMarkdown(big, rctx).html);
  // Runs of `*a` cost markdown-it quadratic time: far more than 1 ms for 10 kB.
  setRenderLimits({ budgetMs: 1 });
  try {
    await assert.rejects(renderMessage('*a'.repeat(5000), rctx), (e: any) => e.message === 'Unable to render message' && e.httpStatus === 400);
  } finally {
    setRenderLimits({ budgetMs: 5000 });
  }
  assert.equal((await renderMessage(big, rctx)).html, renderMarkdown(big, rctx).html);
});
