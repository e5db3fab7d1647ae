import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mobilePushContent, truncateContent } from '../../src/notifications/push-content.js';

/** Zulip's get_mobile_push_content and truncate_content on rendered message HTML. */
test('plain text of rendered HTML: emoji, images, quotes, lists, spoilers', () => {
  assert.equal(mobilePushContent('<p>Hello <strong>world</strong> &amp; all</p>'), 'Hello world & all');
  assert.equal(mobilePushContent('<p><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>'), '🙂');
  assert.equal(mobilePushContent('<p><img alt=":parrot:" class="emoji" src="/e/parrot.png" title="parrot"></p>'), ':parrot:');
  assert.equal(mobilePushContent('<blockquote>\n<p>quoted\nlines</p>\n</blockquote>\n<p>reply</p>'), '> quoted\n> lines\n\nreply');
  assert.equal(mobilePushContent('<ol>\n<li>one</li>\n<li>two</li>\n</ol>'), '1. one\n2. two');
  assert.equal(mobilePushContent('<ol start="3">\n<li>three<ol>\n<li>nested</li>\n</ol>\n</li>\n</ol>'), '3. three\n  1. nested');
  assert.equal(mobilePushContent('<div class="spoiler-block"><div class="spoiler-header">\n<p>Secret</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>hidden</p>\n</div></div>'), 'Secret (…)\n');
  assert.equal(mobilePushContent('<div class="spoiler-block"><div class="spoiler-header">\n</div><div class="spoiler-content"><p>x</p></div></div>'), '(…)\n');
});

test('truncation: 200 characters (code points) and an ellipsis', () => {
  assert.deepEqual(truncateContent('a'.repeat(200)), { content: 'a'.repeat(200), truncated: false });
  assert.deepEqual(truncateContent('a'.repeat(201)), { content: `${'a'.repeat(200)}…`, truncated: true });
  assert.deepEqual(truncateContent('🙂'.repeat(201)), { content: `${'🙂'.repeat(200)}…`, truncated: true });
});
