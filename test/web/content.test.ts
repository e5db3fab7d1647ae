import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFocusableCode, withLinkTargets } from '../../web/src/content.js';

// The server renders bare links, as Zulip does; the web app decides how they open.
test('the web app opens links that leave it in a new tab, and keeps links into it in place', () => {
  assert.equal(withLinkTargets('<p><a href="https://example.com/a?b=1&amp;c=2">x</a></p>'),
    '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">x</a></p>');
  assert.equal(withLinkTargets('<a href="/user_uploads/1/ab/f.pdf">f.pdf</a>'), '<a href="/user_uploads/1/ab/f.pdf" target="_blank" rel="noopener noreferrer">f.pdf</a>');
  const internal = '<a class="stream" data-stream-id="9" href="/#narrow/stream/9-x">#x</a> <a href="#narrow/dm/3-y">y</a>';
  assert.equal(withLinkTargets(internal), internal);
  const already = '<a href="https://x.test" target="_blank" rel="noopener noreferrer" title="https://x.test">x</a>';
  assert.equal(withLinkTargets(already), already, 'messages rendered before the change keep their attributes, once');
  assert.equal(withLinkTargets('<p>no links</p>'), '<p>no links</p>');
});

test('code blocks are focusable, so that the keyboard can scroll them; other tags and existing tabindex untouched', () => {
  assert.equal(withFocusableCode('<div class="codehilite"><pre><span></span><code>x</code></pre></div>'),
    '<div class="codehilite"><pre tabindex="0"><span></span><code>x</code></pre></div>');
  assert.equal(withFocusableCode('<pre class="a">x</pre><pre tabindex="-1">y</pre><preview>'), '<pre tabindex="0" class="a">x</pre><pre tabindex="-1">y</pre><preview>');
  assert.equal(withFocusableCode('<p>no code</p>'), '<p>no code</p>');
});
