import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { assertOk } from '../helpers/assert.js';
import { contextOfSnapshot, snapshotContext } from '../../src/markdown/snapshot.js';
import { EMPTY_CONTEXT } from '../../src/markdown/types.js';

// Levels 346 (`#**stream>**` links the empty topic) and 347 (topic links carry `with` their
// newest message), through POST /messages and POST /messages/render, and the older levels.
let t: TestApp;
let old: TestApp;
let alice: TestUser;
let oldAlice: TestUser;
let verona: number;

before(async () => {
  t = await testApp({ featureLevel: 371 });
  ({ alice } = await t.createUsers(people('alice')));
  verona = (await createStreams(t, { Verona: [alice] })).Verona.id;
  old = await testApp({ featureLevel: 345 });
  ({ alice: oldAlice } = await old.createUsers(people('alice')));
  await createStreams(old, { Verona: [oldAlice] });
});
after(async () => {
  await t.close();
  await old.close();
});

const render = async (app: TestApp, as: TestUser, content: string) =>
  assertOk(await app.api('POST', '/api/v1/messages/render', { as, params: { content } })).rendered as string;
const send = async (app: TestApp, as: TestUser, topic: string, content: string) =>
  assertOk(await app.api('POST', '/api/v1/messages', { as, params: { type: 'stream', to: 'Verona', topic, content } })).id as number;

test('level 347: a topic link follows the topic with `with` its newest message; none while the topic is empty', async () => {
  const base = `/#narrow/stream/${verona}-Verona/topic/lunch`;
  assert.equal(await render(t, alice, '#**Verona>lunch**'),
    `<p><a class="stream-topic" data-stream-id="${verona}" href="${base}">#Verona &gt; lunch</a></p>`);
  await send(t, alice, 'lunch', 'first');
  const newest = await send(t, alice, 'Lunch', 'second');
  assert.equal(await render(t, alice, 'see #**Verona>LUNCH**'),
    `<p>see <a class="stream-topic" data-stream-id="${verona}" href="/#narrow/stream/${verona}-Verona/topic/LUNCH/with/${newest}">#Verona &gt; LUNCH</a></p>`);
  // As stored with a sent message.
  const id = await send(t, alice, 'elsewhere', 'ref #**Verona>lunch**');
  const got = assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: alice })).message;
  assert.match(got.content, new RegExp(`/topic/lunch/with/${newest}"`));
});

test('level 346: `#**stream>**` links the empty topic, shown by its display name', async () => {
  assert.equal(await render(t, alice, '#**Verona>**'),
    `<p><a class="stream-topic" data-stream-id="${verona}" href="/#narrow/stream/${verona}-Verona/topic/">#Verona &gt; <em>general chat</em></a></p>`);
  const newest = await send(t, alice, '', 'in general chat');
  assert.equal(await render(t, alice, '#**Verona>**'),
    `<p><a class="stream-topic" data-stream-id="${verona}" href="/#narrow/stream/${verona}-Verona/topic//with/${newest}">#Verona &gt; <em>general chat</em></a></p>`);
});

test('below 346 `#**stream>**` is no link, and below 347 topic links have no `with`', async () => {
  assert.equal(await render(old, oldAlice, '#**Verona>**'), '<p>#<strong>Verona&gt;</strong></p>');
  await send(old, oldAlice, 'lunch', 'first');
  assert.match(await render(old, oldAlice, '#**Verona>lunch**'), /href="\/#narrow\/stream\/\d+-Verona\/topic\/lunch">/);
});

test('a render on another thread gets the same `with` targets (context snapshot)', () => {
  const rctx = {
    ...EMPTY_CONTEXT, featureLevel: 371,
    streamByName: (name: string) => (name.toLowerCase() === 'verona' ? { id: 9, name: 'Verona' } : undefined),
    latestInTopic: (streamId: number, topicLower: string) => (streamId === 9 && topicLower === 'lunch' ? 77 : undefined),
  };
  const copy = contextOfSnapshot(JSON.parse(JSON.stringify(snapshotContext('#**Verona>Lunch** #**Verona>other**', rctx))));
  assert.equal(copy.latestInTopic?.(9, 'lunch'), 77);
  assert.equal(copy.latestInTopic?.(9, 'other'), undefined);
});
