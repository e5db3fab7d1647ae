import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { validateEvent } from '../../src/events/schemas.js';
import { applyEvent } from '../../src/events/apply.js';
import type { ClientEvent } from '../../src/events/types.js';
import { Role } from '../../src/lib/roles.js';

// Feature level 163: email_address_visibility is each user's setting (PATCH /settings,
// user_settings, realm_user_settings_defaults; the organization's is gone from register and
// PATCH /realm); delivery_email is always present, null when the user's setting hides it
// from the viewer (a bot's and one's own always shown); changing the setting sends the
// address to those who may now see it and null to those who no longer may. Level 122 keeps
// the organization's setting.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, guest: TestUser, mod: TestUser, admin: TestUser, bot: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  alice = await t.createUser({ name: 'Alice Visible' });
  bob = await t.createUser({ name: 'Bob Member' });
  guest = await t.createUser({ name: 'Gus Guest', role: Role.GUEST });
  mod = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  bot = await t.createBot(alice, { fullName: 'Visible Bot', shortName: 'visbot' });
});
after(() => t.close());

const register = async (as: TestUser, types = ['realm_user', 'realm', 'user_settings', 'realm_user_settings_defaults']) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { fetch_event_types: types, client_capabilities: { user_settings_object: true } } }));
const seenBy = async (as: TestUser, who: TestUser) =>
  ((await register(as, ['realm_user'])).realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === who.id)!.delivery_email;
const setVisibility = async (as: TestUser, value: number) =>
  assertOk(await t.api('PATCH', '/api/v1/settings', { as, params: { email_address_visibility: value } }));
const addressOf = (u: TestUser) => u.row.delivery_email;

/** register, the action, its events applied as a client would: the same realm_users as a fresh register. */
async function guarded(as: TestUser, action: () => Promise<unknown>): Promise<void> {
  const reg = await register(as, ['realm_user']);
  await action();
  const polled = assertOk(await t.api('GET', '/api/v1/events', { as, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } }));
  for (const e of polled.events) {
    assert.deepEqual(validateEvent(e), [], JSON.stringify(e));
    applyEvent(reg, e as ClientEvent, as.id);
  }
  const byId = (l: Array<{ user_id: number }>) => [...l].sort((a, b) => a.user_id - b.user_id);
  assert.deepEqual(byId(reg.realm_users), byId((await register(as, ['realm_user'])).realm_users));
}

test('register: the user setting and its default; no organization setting; delivery_email everywhere', async () => {
  const reg = await register(bob);
  assert.equal(reg.user_settings.email_address_visibility, 1);
  assert.equal(reg.realm_user_settings_defaults.email_address_visibility, 1);
  assert.equal('realm_email_address_visibility' in reg, false);
  for (const u of reg.realm_users) assert.ok('delivery_email' in u, `user ${u.user_id}`);
  assert.equal(await seenBy(bob, alice), addressOf(alice));
  assert.equal(await seenBy(guest, bot), addressOf(bot));
});

test('each setting value: who sees the address (register, GET /users, GET /users/{id})', async () => {
  const viewers = { guest, bob, mod, admin };
  const expected: Record<number, Array<keyof typeof viewers>> = {
    1: ['guest', 'bob', 'mod', 'admin'], 2: ['bob', 'mod', 'admin'], 5: ['mod', 'admin'], 3: ['admin'], 4: [],
  };
  for (const [value, who] of Object.entries(expected)) {
    await setVisibility(alice, Number(value));
    for (const [name, viewer] of Object.entries(viewers)) {
      const want = who.includes(name as keyof typeof viewers) ? addressOf(alice) : null;
      assert.equal(await seenBy(viewer, alice), want, `visibility ${value}, ${name} (register)`);
      const list = assertOk(await t.api('GET', '/api/v1/users', { as: viewer })).members as Array<Record<string, unknown>>;
      assert.equal(list.find((u) => u.user_id === alice.id)!.delivery_email, want, `visibility ${value}, ${name} (GET /users)`);
      assert.equal(assertOk(await t.api('GET', `/api/v1/users/${alice.id}`, { as: viewer })).user.delivery_email, want, `visibility ${value}, ${name} (GET /users/{id})`);
    }
    // One's own address, always.
    assert.equal(await seenBy(alice, alice), addressOf(alice));
  }
  // Bots are always "everyone".
  for (const viewer of Object.values(viewers)) assert.equal(await seenBy(viewer, bot), addressOf(bot));
  await setVisibility(alice, 1);
});

test('changing the setting: the address to those who may now see it, null to those who no longer may; state follows', async () => {
  log.clear();
  await setVisibility(alice, 3);
  const updates = log.find('realm_user', 'update');
  assert.deepEqual(updates.map((e) => e.event.person), [{ user_id: alice.id, delivery_email: null }]);
  assert.deepEqual([...updates[0]!.userIds].sort((a, b) => a - b), [bob.id, guest.id, mod.id, bot.id, t.owner.id].filter((id) => id !== t.owner.id).sort((a, b) => a - b));
  assert.equal(log.find('user_settings').length, 1);
  assert.deepEqual(log.one('user_settings').userIds, [alice.id]);
  log.clear();
  await setVisibility(alice, 5);
  assert.deepEqual(log.find('realm_user', 'update').map((e) => [e.event.person, e.userIds]), [[{ user_id: alice.id, delivery_email: addressOf(alice) }, [mod.id]]]);
  for (const [viewer, value] of [[bob, 1], [mod, 4], [admin, 2], [guest, 1]] as const) await guarded(viewer, () => setVisibility(alice, value));
});

test('a new user: realm_user add carries the address or null by the new user\'s setting (the organization\'s default)', async () => {
  assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { email_address_visibility: 3 } }));
  log.clear();
  const created = assertOk(await t.api('POST', '/api/v1/users', { params: { email: 'newbie@example.com', password: 'pw-12345678', full_name: 'New Bie' } }));
  const adds = log.find('realm_user', 'add');
  const to = (id: number) => adds.find((e) => e.userIds.includes(id))!.event.person.delivery_email;
  assert.equal(to(admin.id), 'newbie@example.com');
  assert.equal(to(bob.id), null);
  assert.equal(to(mod.id), null);
  const newbie = (await register(bob, ['realm_user'])).realm_users.find((u: { user_id: number }) => u.user_id === created.user_id);
  assert.equal(newbie.delivery_email, null);
  await guarded(bob, () => t.api('POST', '/api/v1/users', { params: { email: 'second@example.com', password: 'pw-12345678', full_name: 'Second Bie' } }));
  assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { email_address_visibility: 1 } }));
});

test('PATCH /realm\'s email_address_visibility no longer acts from level 163', async () => {
  await setVisibility(alice, 1);
  assertOk(await t.api('PATCH', '/api/v1/realm', { params: { email_address_visibility: 3 } }));
  assert.equal(await seenBy(bob, alice), addressOf(alice));
  assert.equal('realm_email_address_visibility' in (await register(bob, ['realm'])), false);
});

test('level 122: the organization\'s setting; delivery_email absent when hidden; no user setting in register', async () => {
  const old = await testApp({ featureLevel: 122 });
  try {
    const member = await old.createUser({ name: 'Old Member' });
    const reg = async () => assertOk(await old.api('POST', '/api/v1/register', { as: member, params: { fetch_event_types: ['realm_user', 'realm', 'user_settings'] } }));
    let r = await reg();
    assert.equal(r.realm_email_address_visibility, 1);
    assert.equal('email_address_visibility' in r.user_settings, false);
    assert.equal(r.realm_users.find((u: { user_id: number }) => u.user_id === old.owner.id).delivery_email, old.owner.row.delivery_email);
    assertOk(await old.api('PATCH', '/api/v1/realm', { params: { email_address_visibility: 3 } }));
    r = await reg();
    assert.equal(r.realm_email_address_visibility, 3);
    assert.equal('delivery_email' in r.realm_users.find((u: { user_id: number }) => u.user_id === old.owner.id), false);
  } finally {
    await old.close();
  }
});
