/**
 * The cache layer's one invalidation path: a value is good while the scopes it depends on
 * are unchanged, and committed writes, bus events and the store's epoch are what change
 * them (src/cache/retire.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CacheSignal, cacheSignal } from '../../src/cache/signal.js';
import { VersionedCache } from '../../src/cache/versioned-cache.js';
import { MessageJsonCache } from '../../src/cache/message-json.js';
import { onRowsWritten, type RowKind } from '../../src/store/changes.js';
import { transact } from '../../src/actions/transaction.js';
import { users } from '../../src/store/repos/users.js';
import { publish } from '../../src/events/publish.js';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

test('an entry is good until one of its scopes is retired, and only its own scopes retire it', async () => {
  const signal = new CacheSignal();
  const cache = new VersionedCache<string, number>(['users', 'realms'], 10, signal);
  let loads = 0;
  const load = () => cache.load('k', async () => ++loads);
  assert.equal(await load(), 1);
  assert.equal(await load(), 1);
  signal.retire({ scopes: new Set(['streams']) });
  assert.equal(await load(), 1, 'another scope leaves it');
  signal.retire({ scopes: new Set(['realms']) });
  assert.equal(await load(), 2, 'its scope retires it');
});

test('a value loaded while its scope is retired is not kept', async () => {
  const signal = new CacheSignal();
  const cache = new VersionedCache<string, string>(['subscriptions'], 10, signal);
  const first = await cache.load('k', async () => {
    signal.retire({ scopes: new Set(['subscriptions']) });
    return 'read before the change committed';
  });
  assert.equal(first, 'read before the change committed');
  assert.equal(await cache.load('k', async () => 'fresh'), 'fresh');
});

test('a bounded cache starts over when full', async () => {
  const cache = new VersionedCache<number, number>(['users'], 3, new CacheSignal());
  for (let i = 0; i < 4; i++) await cache.load(i, async () => i);
  assert.equal(cache.get(0), undefined);
  assert.equal(cache.get(3), 3);
});

test('the message JSON cache drops named messages, keeps its entries for a new message, and empties on user changes', async () => {
  const signal = new CacheSignal();
  const cache = new MessageJsonCache(signal);
  const loader = async (ids: number[]) => ids.map((id) => ({ id, text: `m${id}` }));
  await cache.load([1, 2], 0, loader);
  assert.equal(cache.size().entries, 2);
  signal.retire({ scopes: new Set(['messages']) });
  assert.equal(cache.size().entries, 2, 'a new message changes none held');
  signal.retire({ scopes: new Set(['messages']), messageIds: [1] });
  assert.equal(cache.size().entries, 1);
  signal.retire({ scopes: new Set(['users']) });
  assert.deepEqual(cache.size(), { entries: 0, chars: 0 });
  cache.close();
});

test('writes are told once their transaction commits, and never when it rolls back', async () => {
  const told: RowKind[][] = [];
  const stop = onRowsWritten((kinds) => told.push([...kinds]));
  try {
    await transact(t.app.ctx, async (tx) => {
      await users.update(tx.db, t.owner.id, { timezone: 'UTC' });
      assert.deepEqual(told, [], 'not before COMMIT');
    });
    assert.deepEqual(told, [['users']]);
    told.length = 0;
    await assert.rejects(transact(t.app.ctx, async (tx) => {
      await users.update(tx.db, t.owner.id, { timezone: 'Europe/Paris' });
      throw new Error('rolled back');
    }));
    assert.deepEqual(told, []);
    await users.update(t.app.ctx.store.db, t.owner.id, { timezone: '' });
    assert.deepEqual(told, [['users']], 'outside a transaction, as soon as it has run');
  } finally {
    stop();
  }
});

test('an event on the bus retires the scope it is about', async () => {
  const before = cacheSignal.version(['alert_words']);
  publish(t.app.ctx.bus, t.realm.id, { type: 'alert_words', alert_words: [] }, [t.owner.id]);
  assert.notEqual(cacheSignal.version(['alert_words']), before);
  const streams = cacheSignal.version(['streams']);
  publish(t.app.ctx.bus, t.realm.id, { type: 'typing', op: 'start', message_type: 'private', sender: { user_id: 1, email: 'a' }, recipients: [] }, [t.owner.id]);
  assert.equal(cacheSignal.version(['streams']), streams, 'typing changes nothing cached');
});
