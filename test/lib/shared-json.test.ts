import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesWithShared, serializedValue, shareSerialization, stringifyWithShared, withEntry } from '../../src/presenters/shared-json.js';

test('serialises exactly as JSON.stringify does, shared values included', () => {
  const shared = shareSerialization([{ user_id: 1, full_name: 'Zoë "Q" Ünal', profile_data: {} }, { user_id: 2, timezone: '' }]);
  const obj: Record<string, unknown> = {
    result: 'success', msg: '', n: 0, neg: -1.5, t: true, nil: null, gone: undefined, fn: () => 1,
    nested: { a: [1, 'two', { b: null }], when: new Date(0) }, 'quote"key': '\u2028', users: shared, again: shared,
  };
  assert.equal(stringifyWithShared(obj), JSON.stringify(obj));
  assert.equal(stringifyWithShared({}), '{}');
  assert.equal(stringifyWithShared({ only: undefined }), '{}');
});

test("a shared value's serialisation is made once and reused", () => {
  const shared = shareSerialization([{ id: 1 }]);
  const first = stringifyWithShared({ users: shared });
  // Changing a shared value breaks its contract; here it shows that the first serialisation is reused.
  (shared[0] as { id: number }).id = 2;
  assert.equal(stringifyWithShared({ users: shared }), first);
  const unshared = [{ id: 1 }];
  stringifyWithShared({ users: unshared });
  unshared[0]!.id = 2;
  assert.equal(stringifyWithShared({ users: unshared }), '{"users":[{"id":2}]}');
});

test('as bytes: exactly JSON.stringify encoded as UTF-8, shared values and stand-ins included', () => {
  const shared = shareSerialization([{ user_id: 1, full_name: 'Zoë "Q" Ünal 🎉', profile_data: {} }, { user_id: 2, timezone: '' }]);
  const obj: Record<string, unknown> = {
    gone: undefined, result: 'success', msg: '', n: 0, nil: null, fn: () => 1, users: shared, again: shared,
    presences: serializedValue('{"a@b.c":{"website":{"status":"active"}}}'), nested: { a: [1, 'ünï', { b: null }] }, last: undefined,
  };
  const expected = JSON.stringify({ ...obj, presences: { 'a@b.c': { website: { status: 'active' } } } });
  assert.deepEqual(bytesWithShared(obj), Buffer.from(expected));
  assert.deepEqual(bytesWithShared(obj), Buffer.from(expected), 'the second time, from the bytes kept');
  assert.equal(bytesWithShared({}).toString(), '{}');
  assert.equal(bytesWithShared({ only: undefined, fn: () => 1 }).toString(), '{}');
  assert.equal(bytesWithShared({ users: shared }).toString(), stringifyWithShared({ users: shared }));
});

test('a shared list with one entry replaced: the same bytes as the list copied with it', () => {
  const list = shareSerialization([{ user_id: 1, full_name: 'Zoë', delivery_email: null }, { user_id: 2, full_name: 'Ünal 🎉', delivery_email: null }, { user_id: 3 }]);
  for (let i = 0; i < list.length; i++) {
    const entry = { ...list[i]!, delivery_email: 'me@example.com' };
    const copy = list.map((e, j) => (j === i ? entry : e));
    assert.deepEqual(bytesWithShared({ a: 1, users: withEntry(list, i, entry), b: list }), Buffer.from(JSON.stringify({ a: 1, users: copy, b: list })));
    assert.equal(stringifyWithShared({ users: withEntry(list, i, entry) }), JSON.stringify({ users: copy }));
  }
});
