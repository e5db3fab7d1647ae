import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, TWO_NODES, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { getMessages, sendMessage } from '../helpers/messages.js';
import { cachesOf } from '../../src/cache/index.js';
import { cacheSignal } from '../../src/cache/signal.js';
import { loadWireMessages } from '../../src/reads/messages.js';
import type { StreamRow } from '../../src/store/rows.js';

// GET /messages answers from serialised messages kept between reads: these tests change
// what a message looks like after it has been read, and expect every read to show it.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let stream: StreamRow;

const send = (as: TestUser, params: Record<string, unknown>) => sendMessage(t, as, params);
const read = async (as: TestUser, query: Record<string, unknown> = {}) =>
  assertOk(await getMessages(t, as, { num_before: 50, ...query })).messages as Array<Record<string, any>>;
const byId = (list: Array<Record<string, any>>, id: number) => list.find((m) => m.id === id)!;

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { name: 'Alice Cache' }, bob: { name: 'Bob Cache' } }));
  ({ kitchen: stream } = await createStreams(t, { kitchen: [alice, bob] }));
});
after(() => t.close());

test('one serialised message, each reader with their own flags and variant', async () => {
  // Sent from a human client, so read for Alice; a mention for Bob.
  const id = await send(alice, { type: 'stream', to: 'kitchen', topic: 'soup', content: '**hot** soup @**Bob Cache**', client: 'website' });
  assert.deepEqual(byId(await read(alice), id).flags, ['read']);
  assert.deepEqual(byId(await read(bob), id).flags, ['mentioned']);
  // Read again: both now come from the kept serialisation, still with their own flags.
  assert.deepEqual(byId(await read(alice), id).flags, ['read']);
  assert.deepEqual(byId(await read(bob), id).flags, ['mentioned']);
  assert.match(byId(await read(alice), id).content, /^<p><strong>hot<\/strong> soup <span class="user-mention"/);
  const raw = byId(await read(bob, { apply_markdown: false }), id);
  assert.equal(raw.content, '**hot** soup @**Bob Cache**');
  assert.equal(raw.content_type, 'text/x-markdown');
  const html = byId(await read(bob, { apply_markdown: true }), id);
  assert.equal(html.content_type, 'text/html');
  const gravatar = byId(await read(bob, { client_gravatar: false }), id);
  assert.match(String(gravatar.avatar_url), /^https?:\/\//);
  assert.equal(byId(await read(bob, { client_gravatar: true }), id).avatar_url, null);
});

test('renaming the sender shows in messages already read', async () => {
  const id = await send(alice, { type: 'stream', to: 'kitchen', topic: 'names', content: 'who am I' });
  const pm = await send(alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'psst' });
  assert.equal(byId(await read(bob), id).sender_full_name, 'Alice Cache');
  const r = await t.api('PATCH', `/api/v1/users/${alice.id}`, { as: t.owner, params: { full_name: 'Alice Renamed' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const after = await read(bob);
  assert.equal(byId(after, id).sender_full_name, 'Alice Renamed');
  const recipients = byId(after, pm).display_recipient as Array<{ id: number; full_name: string }>;
  assert.equal(recipients.find((u) => u.id === alice.id)!.full_name, 'Alice Renamed');
});

test('renaming the stream shows in messages already read', async () => {
  const id = await send(bob, { type: 'stream', to: 'kitchen', topic: 'rename', content: 'before the rename' });
  assert.equal(byId(await read(alice), id).display_recipient, 'kitchen');
  const r = await t.api('PATCH', `/api/v1/streams/${stream.id}`, { as: t.owner, params: { new_name: 'galley' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(byId(await read(alice), id).display_recipient, 'galley');
});

// The JSON cache as GET /messages uses it (apply_markdown, no client_gravatar: variant 2).
const loadCached = (ids: number[]) => cachesOf(t.app.ctx.store.db).messageJson.load(ids, 2,
  (missing) => loadWireMessages(t.app.ctx.store.db, missing.map((id) => ({ id })), { applyMarkdown: true, clientGravatar: false, realm: t.realm }));

test('a load that straddles a change is not kept', async () => {
  const id = await send(bob, { type: 'stream', to: 'galley', topic: 'race', content: 'racing' });
  const pending = loadCached([id]);
  // A change announced while the load is under way (its rows may predate it).
  cacheSignal.retire({ scopes: new Set(['users']) });
  assert.equal(JSON.parse((await pending)[0]!.json).sender_full_name, 'Bob Cache');
  // Changed behind the cache's back: only a fresh load can show it.
  await t.app.ctx.store.db.updateTable('message').set({ rendered_content: '<p>edited underneath</p>' }).where('id', '=', id).execute();
  assert.equal(JSON.parse((await loadCached([id]))[0]!.json).content, '<p>edited underneath</p>');
});

test('messages deleted with their topic leave every read', async () => {
  const id = await send(alice, { type: 'stream', to: 'galley', topic: 'doomed', content: 'soon gone' });
  assert.ok(byId(await read(bob), id));
  const r = await t.api('POST', `/api/v1/streams/${stream.id}/delete_topic`, { as: t.owner, params: { topic_name: 'doomed' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(byId(await read(bob), id), undefined);
  const kept = await loadCached([id]);
  assert.deepEqual(kept, []);
});

// It looks into the cache of the node its reads go to, which is another process's in the two-node run.
test('the cache accounts for what it holds: a message event frees its entry, a user change frees everything', { skip: TWO_NODES && 'reads go to the other node' }, async () => {
  const cache = cachesOf(t.app.ctx.store.db).messageJson;
  const ids = [await send(alice, { type: 'private', to: [bob.id], content: 'first' }),
    await send(alice, { type: 'private', to: [bob.id], content: 'second' })];
  // The store's epoch poll (once a second) retires everything after any write to the tables
  // it watches, earlier tests' and this process's own included: a window it cut into is
  // tried again.
  let ours = false;
  const window = { cut: false };
  const stop = cacheSignal.listen((r) => { if (!ours && r.scopes.has('users')) window.cut = true; });
  const retire = (r: Parameters<typeof cacheSignal.retire>[0]) => {
    ours = true;
    try {
      cacheSignal.retire(r);
    } finally {
      ours = false;
    }
  };
  try {
    for (let attempt = 1; ; attempt++) {
      window.cut = false;
      retire({ scopes: new Set(['users']) });
      assert.deepEqual(cache.size(), { entries: 0, chars: 0 });
      const listed = await read(bob);
      const one = JSON.stringify({ ...byId(listed, ids[0]!), flags: undefined }).length;
      const held = cache.size();
      if (window.cut && attempt < 5) continue;
      assert.equal(held.entries, listed.length);
      assert.ok(held.chars >= one * listed.length * 0.5, 'each entry counted');
      retire({ scopes: new Set(['messages']), messageIds: [ids[0]!] });
      assert.equal(cache.size().entries, held.entries - 1);
      assert.ok(cache.size().chars < held.chars && cache.size().chars > 0);
      retire({ scopes: new Set(['users']) });
      assert.deepEqual(cache.size(), { entries: 0, chars: 0 });
      break;
    }
  } finally {
    stop();
  }
});
