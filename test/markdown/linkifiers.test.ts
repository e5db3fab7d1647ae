import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileLinkifiers, expandUrl, linkifyText, requiredLiteral } from '../../src/markdown/linkifiers.js';

// The pure linkifier core: Python's format strings, and the literal prefilter, which must
// never skip text a pattern matches (it is only a shortcut past RE2).
test('URL format strings expand as Python formats them after Zulip escapes percent-encoded bytes', () => {
  const g = (v: Record<string, string>) => (n: string) => v[n] ?? null;
  assert.equal(expandUrl('https://x.com/%(id)s', g({ id: '12' })), 'https://x.com/12');
  assert.equal(expandUrl('https://x.com/%%(ignored)s/%(id)s', g({ id: '7' })), 'https://x.com/%(ignored)s/7');
  assert.equal(expandUrl('https://x.com/%ba/%2F%(id)s', g({ id: '7' })), 'https://x.com/%ba/%2F7');
  assert.equal(expandUrl('https://x.com/%(missing)s', g({})), 'https://x.com/None');
});

test('required literals: text every match contains', () => {
  assert.deepEqual(requiredLiteral('PRJ7-(?P<id>[0-9]+)'), { text: 'PRJ7-', caseless: false });
  assert.deepEqual(requiredLiteral('[Cc]ommit (?P<sha>[0-9a-f]{7,40})'), { text: 'ommit ', caseless: false });
  assert.deepEqual(requiredLiteral('(?i)rfc ?(?P<num>[0-9]+)'), { text: 'rfc', caseless: true });
  assert.deepEqual(requiredLiteral('ab?c(?P<x>y)'), { text: 'a', caseless: false });
  assert.deepEqual(requiredLiteral('a|b(?P<x>y)'), { text: '', caseless: false });
  // A counted repetition's bounds are not text: once '2' was taken from `{2}` and "aqq" went unlinked.
  assert.deepEqual(requiredLiteral('.q{2}y*(?P<id>[0-9a-z]*)'), { text: '', caseless: false });
  assert.deepEqual(requiredLiteral('ID{1,3}-x(?P<n>[0-9]+)'), { text: '-x', caseless: false });
  assert.deepEqual(requiredLiteral('\\x{41}bc(?P<a>b)'), { text: 'bc', caseless: false });
  assert.deepEqual(requiredLiteral('\\pLqq(?P<a>b)'), { text: 'qq', caseless: false });
});

test('property: the prefilter never changes what linkifies', () => {
  const atom = fc.constantFrom('a', 'b', 'C', '-', '#', ' ', '\\d', '[ab]', '.', '\\.', '\\pL', '(?P<g>x)', 'x?', 'y*', 'z+', 'q{2}', '(?i)', '|');
  const text = fc.array(fc.constantFrom('a', 'b', 'c', 'C', '-', '#', ' ', '1', '.', 'x', 'y', 'z', 'q', 'é', 'ſ'), { maxLength: 30 }).map((xs) => xs.join(''));
  fc.assert(fc.property(fc.array(atom, { minLength: 1, maxLength: 6 }), text, (atoms, input) => {
    const pattern = `${atoms.join('')}(?P<id>[0-9a-z]*)`;
    const list = [{ id: 1, pattern, url_format: 'https://x.example.com/%(id)s' }];
    const compiled = compileLinkifiers(list);
    if (compiled.list.length === 0) return;
    const unfiltered = { ...compiled, list: compiled.list.map((l) => ({ ...l, literal: { text: '', caseless: false } })) };
    assert.deepEqual(linkifyText(input, compiled), linkifyText(input, unfiltered), pattern);
  }), { numRuns: 500 });
});
