/**
 * The cache epoch (migration 012, src/store/epoch.ts): writes another process makes
 * (the CLI, another node, a hand-run statement) reach this process's caches within a
 * second, without any event. Each test writes straight to the store, as such a process
 * would, bypassing this process's actions and their in-process version counters.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { untilEpochShows, untilLoginRefused } from '../helpers/epoch.js';

let t: TestApp;
let alice: TestUser;
before(async () => {
  t = await testApp();
  alice = await t.createUser({ name: 'Alice Epoch' });
});
after(() => t.close());

const epoch = async () => Number((await t.app.ctx.store.db.selectFrom('cache_epoch').select('value').executeTakeFirstOrThrow()).value);

test('every write to a watched table moves the epoch, and writes elsewhere do not', async () => {
  const db = t.app.ctx.store.db;
  const moved = async (write: () => Promise<unknown>): Promise<boolean> => {
    const before = await epoch();
    await write();
    return (await epoch()) > before;
  };
  assert.ok(await moved(() => sql`UPDATE users SET full_name = full_name WHERE id = ${alice.id}`.execute(db)), 'users');
  assert.ok(await moved(() => sql`UPDATE realm SET name = name WHERE id = ${t.realm.id}`.execute(db)), 'realm');
  assert.ok(await moved(() => t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'epoch' }] } })), 'stream and subscription inserts');
  assert.ok(await moved(() => sql`UPDATE subscription SET color = '#000000' WHERE user_id = ${alice.id}`.execute(db)), 'subscription');
  assert.ok(await moved(() => sql`UPDATE stream SET description = 'd' WHERE name = 'epoch'`.execute(db)), 'stream');
  assert.ok(await moved(() => t.api('POST', '/api/v1/users/me/alert_words', { as: alice, params: { alert_words: ['epoch'] } })), 'alert_word insert');
  assert.ok(await moved(() => t.api('DELETE', '/api/v1/users/me/alert_words', { as: alice, params: { alert_words: ['epoch'] } })), 'alert_word delete');
  const send = () => t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'epoch', topic: 't', content: 'hi' } });
  assert.ok(await moved(send), "a stream's first message sets its first_message_id");
  assert.ok(!(await moved(send)), 'later sends write no watched row');
});

test("another process's deactivation locks the user out within a second", async () => {
  const u = await t.createUser({ name: 'Locked Out' });
  assert.equal((await t.api('GET', '/api/v1/users/me', { as: u })).status, 200);
  await sql`UPDATE users SET is_active = 0 WHERE id = ${u.id}`.execute(t.app.ctx.store.db);
  const r = await untilLoginRefused(t, u);
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'USER_DEACTIVATED');
});

test("another process's rename reaches register's cached user list and mention rendering", async () => {
  const u = await t.createUser({ name: 'Old Name' });
  const names = async () => {
    const state = assertOk(await t.api('POST', '/api/v1/register', { as: alice, params: { fetch_event_types: ['realm_user'] } }));
    return (state.realm_users as Array<{ user_id: number; full_name: string }>).find((x) => x.user_id === u.id)?.full_name;
  };
  assert.equal(await names(), 'Old Name');
  await sql`UPDATE users SET full_name = 'New Name' WHERE id = ${u.id}`.execute(t.app.ctx.store.db);
  await untilEpochShows(async () => (await names()) !== 'Old Name', "the new name in register's user list");
  assert.equal(await names(), 'New Name');
  const sent = assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'epoch', topic: 't', content: '@**New Name** hi' } }));
  const m = assertOk(await t.api('GET', `/api/v1/messages/${sent.id}`, { as: alice }));
  assert.match(m.message.content, /user-mention/);
});

test("another process's unsubscribe stops the very next send reaching that user, after a second", async () => {
  const u = await t.createUser({ name: 'Leaver' });
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: u, params: { subscriptions: [{ name: 'epoch' }] } }));
  const send = async () => assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'epoch', topic: 't', content: 'hi' } })).id as number;
  const received = async (id: number) => (assertOk(await t.api('GET', `/api/v1/messages/${id}`, { as: u })).message.flags as string[]).includes('historical') === false;
  const reaches = async (id: number) => (await t.app.ctx.store.db.selectFrom('user_message').select('user_id').where('message_id', '=', id).execute())
    .some((r) => r.user_id === u.id);
  assert.ok(await received(await send()));
  await sql`UPDATE subscription SET active = 0 WHERE user_id = ${u.id}`.execute(t.app.ctx.store.db);
  // Sends until one no longer reaches the user: the send lookups have seen the epoch move.
  await untilEpochShows(async () => !(await reaches(await send())), 'a send that no longer reaches the user who left');
  const after = await send();
  assert.ok(!(await reaches(after)), 'no recipient row for the user who left');
});
