import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { EventLog } from '../helpers/events.js';
import { postMultipart, uploadOne } from '../helpers/multipart.js';
import { recipients } from '../../src/store/repos/recipients.js';
import type { StreamRow } from '../../src/store/rows.js';

// Zulip 10's message, upload and markdown levels (284–365) at 371, each against the older
// behaviour it replaced (277, or the level just below where that differs).
interface Setup { t: TestApp; alice: TestUser; bob: TestUser; carol: TestUser; kitchen: StreamRow; log: EventLog }
const apps: TestApp[] = [];
after(() => Promise.all(apps.map((a) => a.close())));

async function setUp(featureLevel: number): Promise<Setup> {
  const t = await testApp({ featureLevel });
  apps.push(t);
  const { alice, bob, carol } = await t.createUsers({ alice: { name: 'Alice Ten' }, bob: { name: 'Bob Ten' }, carol: { name: 'Carol Ten' } });
  const { kitchen } = await createStreams(t, { kitchen: [alice!, bob!] });
  return { t, alice: alice!, bob: bob!, carol: carol!, kitchen, log: new EventLog(t) };
}

const edit = (s: Setup, as: TestUser, id: number, params: Record<string, unknown>) => s.t.api('PATCH', `/api/v1/messages/${id}`, { as, params });
const fetchOne = async (s: Setup, as: TestUser, id: number) => assertOk(await s.t.api('GET', `/api/v1/messages/${id}`, { as })).message as Record<string, any>;
const toKitchen = (s: Setup, as: TestUser, content: string, topic = 'soup') => sendMessage(s.t, as, { type: 'stream', to: 'kitchen', topic, content });
const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer();

test('level 284: edit_history entries and update_message events leave out prev_rendered_content_version (kept at 277)', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const id = await toKitchen(s, s.alice, 'first');
    s.log.clear();
    assertOk(await edit(s, s.alice, id, { content: 'second' }));
    const [entry] = (await fetchOne(s, s.bob, id)).edit_history;
    const event = s.log.one('update_message').event as Record<string, unknown>;
    assert.equal('prev_rendered_content_version' in entry, level < 284, `level ${level}: edit_history`);
    assert.equal('prev_rendered_content_version' in event, level < 284, `level ${level}: event`);
    assert.equal(entry.prev_content, 'first');
  }
});

test('level 285: PATCH /messages/{id} answers detached_uploads, the editor\'s files the edit unlinked that nothing else links', async () => {
  const s = await setUp(371);
  const gone = await uploadOne(s.t, s.alice, 'gone.txt', 'bye');
  const shared = await uploadOne(s.t, s.alice, 'shared.txt', 'stays');
  const id = await toKitchen(s, s.alice, `[gone](${gone}) [shared](${shared})`);
  await toKitchen(s, s.alice, `again [shared](${shared})`);
  const answer = assertOk(await edit(s, s.alice, id, { content: 'nothing linked now' }));
  assert.equal(answer.detached_uploads.length, 1);
  const [d] = answer.detached_uploads;
  assert.equal(d.path_id, gone.slice('/user_uploads/'.length));
  assert.equal(d.name, 'gone.txt');
  assert.equal(d.size, 3);
  assert.deepEqual(d.messages, []);
  assert.equal(typeof d.id, 'number');
  assert.equal(typeof d.create_time, 'number');
  // It is the same object GET /attachments describes.
  const listed = assertOk(await s.t.api('GET', '/api/v1/attachments', { as: s.alice })).attachments.find((a: any) => a.id === d.id);
  assert.deepEqual(d, listed);
  // An edit that unlinks nothing, or moves only, detaches nothing.
  assert.deepEqual(assertOk(await edit(s, s.alice, id, { content: 'still nothing' })).detached_uploads, []);
  assert.deepEqual(assertOk(await edit(s, s.alice, id, { topic: 'stew' })).detached_uploads, []);
  assertUnauthenticated(await s.t.api('PATCH', `/api/v1/messages/${id}`, { as: null, params: { content: 'x' } }));

  const old = await setUp(277);
  const file = await uploadOne(old.t, old.alice, 'old.txt', 'x');
  const oldId = await toKitchen(old, old.alice, `[old](${file})`);
  const r = assertOk(await edit(old, old.alice, oldId, { content: 'no file' }));
  assert.equal('detached_uploads' in r, false);
});

test('level 286: POST /user_uploads answers filename, the name as uploaded (absent at 277)', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const r = await postMultipart(s.t, '/api/v1/user_uploads', s.alice, [{ field: 'file', filename: 'my photo (1).png', content: 'not really' }]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.filename, level >= 286 ? 'my photo (1).png' : undefined);
    assert.equal(r.body.url, r.body.uri);
    assert.notEqual(r.body.uri.split('/').at(-1), 'my photo (1).png');
  }
});

test('level 289: POST /users/me/subscriptions keys subscribed and already_subscribed by user id (by email at 277)', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const key = (u: TestUser) => (level >= 289 ? String(u.id) : u.email);
    const r = assertOk(await s.t.api('POST', '/api/v1/users/me/subscriptions', {
      as: s.alice, params: { subscriptions: JSON.stringify([{ name: 'kitchen' }, { name: 'pantry' }]), principals: JSON.stringify([s.bob.id, s.carol.id]) },
    }));
    assert.deepEqual(r.subscribed, { [key(s.bob)]: ['pantry'], [key(s.carol)]: ['kitchen', 'pantry'] });
    assert.deepEqual(r.already_subscribed, { [key(s.bob)]: ['kitchen'] });
  }
});

test('level 300: GET /messages with message_ids answers those the narrow holds and the reader may read, without anchor fields', async () => {
  const s = await setUp(371);
  const { secret } = await createStreams(s.t, { secret: { subscribers: [s.alice], inviteOnly: true } });
  const a = await toKitchen(s, s.alice, 'one');
  const b = await toKitchen(s, s.bob, 'two', 'other');
  const hidden = await sendMessage(s.t, s.alice, { type: 'stream', to: secret.name, topic: 't', content: 'secret' });
  const get = (as: TestUser | null, query: Record<string, unknown>) => s.t.api('GET', '/api/v1/messages', { as, query });

  const r = assertOk(await get(s.bob, { message_ids: JSON.stringify([b, hidden, a, 99_999_999]) }));
  assert.deepEqual(r.messages.map((m: any) => m.id), [a, b]);
  assert.equal('anchor' in r, false);
  assert.deepEqual([r.found_anchor, r.found_oldest, r.found_newest, r.history_limited], [false, false, false, false]);
  assert.ok(Array.isArray(r.messages[0].flags));
  // The narrow still applies.
  const narrowed = assertOk(await get(s.bob, { message_ids: JSON.stringify([a, b]), narrow: JSON.stringify([['topic', 'other']]) }));
  assert.deepEqual(narrowed.messages.map((m: any) => m.id), [b]);
  // Zero counts are no window; anything else is.
  assertOk(await get(s.bob, { message_ids: JSON.stringify([a]), num_before: 0, num_after: 0 }));
  const combo = 'Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor';
  const extra = { parameters: 'num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor' };
  assertError(await get(s.bob, { message_ids: JSON.stringify([a]), anchor: 'newest' }), combo, 'INCOMPATIBLE_PARAMETERS', 400, extra);
  assertError(await get(s.bob, { message_ids: JSON.stringify([a]), num_after: 2 }), combo, 'INCOMPATIBLE_PARAMETERS', 400, extra);
  assertError(await get(s.bob, { message_ids: JSON.stringify([a]), use_first_unread_anchor: true }), combo, 'INCOMPATIBLE_PARAMETERS', 400, extra);
  assertError(await get(s.bob, { message_ids: JSON.stringify(Array.from({ length: 5001 }, (_, i) => i + 1)) }), 'Too many messages requested (maximum 5000).');
  // Without message_ids the window's parameters stay required.
  assertError(await get(s.bob, { anchor: 'newest', num_after: 0 }), "Missing 'num_before' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'num_before' });
  assertError(await get(s.bob, { anchor: 'newest', num_before: 0 }), "Missing 'num_after' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'num_after' });
  assertUnauthenticated(await get(null, { message_ids: JSON.stringify([a]) }));
  // A window keeps its anchor.
  assert.equal(typeof assertOk(await get(s.bob, { anchor: 'newest', num_before: 1, num_after: 0 })).anchor, 'number');
});

test('level 319: #**stream>topic@id** renders a message-link (a topic link with "@id" in its topic at 277)', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const id = await toKitchen(s, s.alice, 'see #**kitchen>soup@123**');
    const html = (await fetchOne(s, s.alice, id)).content;
    const base = `/#narrow/stream/${s.kitchen.id}-kitchen/topic/soup`;
    assert.equal(html, level >= 319
      ? `<p>see <a class="message-link" href="${base}/near/123">#kitchen &gt; soup @ 💬</a></p>`
      : `<p>see <a class="stream-topic" data-stream-id="${s.kitchen.id}" href="/#narrow/stream/${s.kitchen.id}-kitchen/topic/soup.40123">#kitchen &gt; soup@123</a></p>`);
  }
});

test('level 327: an incoming 1:1 message carries the recipient_id of the outgoing ones in that conversation, in fetches and events', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const reg = assertOk(await s.t.api('POST', '/api/v1/register', { as: s.alice, params: { event_types: JSON.stringify(['message']) } }));
    const outgoing = await sendMessage(s.t, s.alice, { type: 'private', to: JSON.stringify([s.bob.id]), content: 'hi bob' });
    const incoming = await sendMessage(s.t, s.bob, { type: 'private', to: JSON.stringify([s.alice.id]), content: 'hi alice' });
    const self = await sendMessage(s.t, s.alice, { type: 'private', to: JSON.stringify([s.alice.id]), content: 'note' });
    const db = s.t.app.ctx.store.db;
    const bobs = await recipients.personalOf(db, s.bob.id);
    const alices = await recipients.personalOf(db, s.alice.id);
    const expected = level >= 327 ? bobs : alices;
    assert.equal((await fetchOne(s, s.alice, outgoing)).recipient_id, bobs);
    assert.equal((await fetchOne(s, s.alice, incoming)).recipient_id, expected);
    assert.equal((await fetchOne(s, s.alice, self)).recipient_id, alices);
    // The sender sees the message addressed as it was.
    assert.equal((await fetchOne(s, s.bob, incoming)).recipient_id, alices);
    // GET /messages (twice: the second from the shared cache) and a search agree.
    for (const query of [{}, {}, { narrow: JSON.stringify([['search', 'alice']]) }]) {
      const r = assertOk(await s.t.api('GET', '/api/v1/messages', { as: s.alice, query: { anchor: 'newest', num_before: 10, num_after: 0, ...query } }));
      assert.equal(r.messages.find((m: any) => m.id === incoming).recipient_id, expected);
    }
    const bobView = assertOk(await s.t.api('GET', '/api/v1/messages', { as: s.bob, query: { anchor: 'newest', num_before: 10, num_after: 0 } }));
    assert.equal(bobView.messages.find((m: any) => m.id === incoming).recipient_id, alices);
    const events = assertOk(await s.t.api('GET', '/api/v1/events', { as: s.alice, query: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } })).events;
    const byId = (mid: number) => events.find((e: any) => e.type === 'message' && e.message.id === mid).message;
    assert.equal(byId(incoming).recipient_id, expected);
    assert.equal(byId(outgoing).recipient_id, bobs);
    assert.equal(byId(self).recipient_id, alices);
  }
});

test('levels 328 and 339: reactions in messages lose `user` from 328; reaction events lose it at 328–338 and have it again from 339', async () => {
  for (const level of [277, 330, 371]) {
    const s = await setUp(level);
    const id = await toKitchen(s, s.alice, 'react');
    s.log.clear();
    assertOk(await s.t.api('POST', `/api/v1/messages/${id}/reactions`, { as: s.bob, params: { emoji_name: 'smile' } }));
    const [reaction] = (await fetchOne(s, s.alice, id)).reactions;
    assert.equal(reaction.user_id, s.bob.id);
    assert.equal('user' in reaction, level < 328, `level ${level}: message reactions`);
    const event = s.log.one('reaction', 'add').event as Record<string, any>;
    assert.equal(event.user_id, s.bob.id);
    if (level < 328 || level >= 339) assert.deepEqual(event.user, { user_id: s.bob.id, email: s.bob.email, full_name: 'Bob Ten' });
    else assert.equal('user' in event, false);
  }
});

test('level 336: image previews carry data-original-content-type (not at 277); Parley transcodes nothing, so no data-transcoded-image', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const uri = await uploadOne(s.t, s.alice, 'pic.png', await png(30, 20));
    const id = await toKitchen(s, s.alice, `[pic.png](${uri})`);
    const type = level >= 336 ? ' data-original-content-type="image/png"' : '';
    assert.equal((await fetchOne(s, s.alice, id)).content,
      `<div class="message_inline_image"><a href="${uri}" title="pic.png"><img${type} data-original-dimensions="30x20" src="${uri}"></a></div>`);
  }
});

test('level 355: marking unread answers ignored_because_not_subscribed_channels, the streams it skipped', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const id = await toKitchen(s, s.alice, 'carol reads this unsubscribed');
    const dm = await sendMessage(s.t, s.alice, { type: 'private', to: JSON.stringify([s.carol.id]), content: 'dm' });
    const flags = async (params: Record<string, unknown>) => assertOk(await s.t.api('POST', '/api/v1/messages/flags', { as: s.carol, params }));
    const unread = await flags({ messages: JSON.stringify([id, dm]), op: 'remove', flag: 'read' });
    assert.deepEqual(unread.messages, [id, dm]);
    assert.deepEqual(unread.ignored_because_not_subscribed_channels, level >= 355 ? [s.kitchen.id] : undefined);
    // Only removing `read` has the field.
    const starred = await flags({ messages: JSON.stringify([dm]), op: 'add', flag: 'starred' });
    assert.equal('ignored_because_not_subscribed_channels' in starred, false);
    const narrow = assertOk(await s.t.api('POST', '/api/v1/messages/flags/narrow', {
      as: s.carol, params: { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([['stream', 'kitchen']]), op: 'remove', flag: 'read' },
    }));
    assert.deepEqual(narrow.ignored_because_not_subscribed_channels, level >= 355 ? [s.kitchen.id] : undefined);
    assert.equal(narrow.updated_count, 0);
  }
});

test('level 365: last_edit_timestamp only for content edits, last_moved_timestamp for moves that are not a resolve', async () => {
  for (const level of [277, 371]) {
    const s = await setUp(level);
    const moved = await toKitchen(s, s.alice, 'to be moved');
    const resolved = await toKitchen(s, s.alice, 'to be resolved', 'done');
    const edited = await toKitchen(s, s.alice, 'to be edited', 'edits');
    assertOk(await edit(s, s.alice, moved, { topic: 'broth' }));
    assertOk(await edit(s, s.alice, resolved, { topic: '✔ done', send_notification_to_new_thread: false }));
    assertOk(await edit(s, s.alice, edited, { content: 'edited' }));
    const m = await fetchOne(s, s.bob, moved);
    const r = await fetchOne(s, s.bob, resolved);
    const e = await fetchOne(s, s.bob, edited);
    if (level >= 365) {
      assert.equal(typeof m.last_moved_timestamp, 'number');
      assert.equal('last_edit_timestamp' in m, false);
      assert.equal('last_moved_timestamp' in r, false);
      assert.equal('last_edit_timestamp' in r, false);
      assert.equal(typeof e.last_edit_timestamp, 'number');
      assert.equal('last_moved_timestamp' in e, false);
      // Edited after a move: both.
      assertOk(await edit(s, s.alice, moved, { content: 'and edited' }));
      const both = await fetchOne(s, s.bob, moved);
      assert.equal(typeof both.last_edit_timestamp, 'number');
      assert.equal(both.last_moved_timestamp, m.last_moved_timestamp);
    } else {
      for (const x of [m, r, e]) {
        assert.equal(typeof x.last_edit_timestamp, 'number');
        assert.equal('last_moved_timestamp' in x, false);
      }
    }
  }
});
