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
  // Not of the dummy's form (`user{n}@host`, as the helper's addresses are).
  alice = await t.createUser({ name: 'Alice Visible', email: 'alice.visible@example.org', password: 'alice-pw-123' });
  bob = await t.createUser({ name: 'Bob Member', email: 'bob.member@example.org' });
  guest = await t.createUser({ name: 'Gus Guest', email: 'gus.guest@example.org', role: Role.GUEST });
  mod = await t.createUser({ name: 'Mo Moderator', email: 'mo.mod@example.org', role: Role.MODERATOR });
  admin = await t.createUser({ name: 'Ada Admin', email: 'ada.admin@example.org', role: Role.ADMINISTRATOR });
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
  // (The new API email and the avatar follow; see the API email's test.)
  const updates = log.find('realm_user', 'update').filter((e) => 'delivery_email' in e.event.person);
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

test('the API email: user{id}@host while hidden (users, messages, events); lookups by either address, logins by the real one', async () => {
  await setVisibility(alice, 1);
  const shownBy = async (viewer: TestUser) => assertOk(await t.api('GET', `/api/v1/users/${alice.id}`, { as: viewer })).user.email as string;
  assert.equal(await shownBy(bob), addressOf(alice));
  log.clear();
  await setVisibility(alice, 3);
  const dummy = await shownBy(bob);
  assert.match(dummy, new RegExp(`^user${alice.id}@[^@]+$`));
  // Everyone, administrators and the user included, gets the same `email`; admins still see delivery_email.
  assert.equal(await shownBy(admin), dummy);
  assert.equal(await shownBy(alice), dummy);
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${alice.id}`, { as: admin })).user.delivery_email, addressOf(alice));
  // new_email to everyone, then the avatar.
  const updates = log.find('realm_user', 'update').map((e) => e.event.person);
  assert.ok(updates.some((p) => p.new_email === dummy && p.user_id === alice.id), JSON.stringify(updates));
  const newEmail = log.find('realm_user', 'update').find((e) => e.event.person.new_email !== undefined)!;
  assert.ok(newEmail.userIds.includes(bob.id) && newEmail.userIds.includes(guest.id) && newEmail.userIds.includes(alice.id));
  assert.ok(updates.some((p) => p.user_id === alice.id && typeof p.avatar_url === 'string'));
  // Between two hidden values nothing changes.
  log.clear();
  await setVisibility(alice, 4);
  assert.equal(log.find('realm_user', 'update').filter((e) => e.event.person.new_email !== undefined).length, 0);
  assert.equal(await shownBy(bob), dummy);
  // Messages carry it.
  const sent = assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'private', to: JSON.stringify([bob.id]), content: 'hidden hello' } }));
  const got = assertOk(await t.api('GET', '/api/v1/messages', { as: bob, params: { anchor: sent.id, num_before: 0, num_after: 0 } })).messages[0];
  assert.equal(got.sender_email, dummy);
  assert.ok(got.display_recipient.some((u: { id: number; email: string }) => u.id === alice.id && u.email === dummy));
  // Messages to the dummy address reach alice; the real one no longer names her.
  assertOk(await t.api('POST', '/api/v1/messages', { as: bob, params: { type: 'private', to: JSON.stringify([dummy]), content: 'to the dummy' } }));
  const bad = await t.api('POST', '/api/v1/messages', { as: bob, params: { type: 'private', to: JSON.stringify([addressOf(alice)]), content: 'to the real one' } });
  assert.equal(bad.status, 400);
  // GET /users/{email}: the dummy for anyone; the real address only for those allowed to see it.
  await setVisibility(alice, 3);
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${dummy}`, { as: bob })).user.user_id, alice.id);
  const hidden = await t.api('GET', `/api/v1/users/${addressOf(alice)}`, { as: bob });
  assert.equal(hidden.status, 400);
  assert.equal(hidden.body.msg, 'No such user');
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${addressOf(alice)}`, { as: admin })).user.user_id, alice.id);
  // Logins by the real address only; fetch_api_key answers it.
  const key = assertOk(await t.api('POST', '/api/v1/fetch_api_key', { params: { username: addressOf(alice), password: 'alice-pw-123' } }));
  assert.deepEqual([key.email, key.user_id], [addressOf(alice), alice.id]);
  assert.equal((await t.api('POST', '/api/v1/fetch_api_key', { params: { username: dummy, password: 'alice-pw-123' } })).status, 401);
  assertOk(await t.api('GET', '/api/v1/users/me', { as: alice }));
  // Back to "everyone": the real address again.
  log.clear();
  await setVisibility(alice, 1);
  assert.equal(await shownBy(bob), addressOf(alice));
  assert.ok(log.find('realm_user', 'update').some((e) => e.event.person.new_email === addressOf(alice)));
  await guarded(bob, async () => { await setVisibility(alice, 2); await setVisibility(alice, 1); });
});

test('a new user hiding their address by the organization\'s default gets user{id}@host at once', async () => {
  assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { email_address_visibility: 2 } }));
  try {
    const created = assertOk(await t.api('POST', '/api/v1/users', { params: { email: 'quiet@example.com', password: 'pw-12345678', full_name: 'Quiet One' } }));
    const user = assertOk(await t.api('GET', `/api/v1/users/${created.user_id}`, { as: bob })).user;
    assert.match(user.email, new RegExp(`^user${created.user_id}@`));
    assert.equal(user.delivery_email, 'quiet@example.com');
    const dup = await t.api('POST', '/api/v1/users', { params: { email: 'quiet@example.com', password: 'pw-12345678', full_name: 'Quiet Two' } });
    assert.equal(dup.status, 400);
  } finally {
    assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { email_address_visibility: 1 } }));
  }
});

test('level 122: `email` stays the real address whatever the organization\'s setting', async () => {
  const old = await testApp({ featureLevel: 122 });
  try {
    const member = await old.createUser({ name: 'Old Member Two' });
    assertOk(await old.api('PATCH', '/api/v1/realm', { params: { email_address_visibility: 4 } }));
    const other = await old.createUser({ name: 'Old Other' });
    const seen = assertOk(await old.api('GET', `/api/v1/users/${other.id}`, { as: member })).user;
    assert.equal(seen.email, other.row.delivery_email);
    assert.equal(assertOk(await old.api('GET', `/api/v1/users/${other.row.delivery_email}`, { as: member })).user.user_id, other.id);
    // PATCH /settings' email_address_visibility is ignored below 163: nothing changes.
    const r = assertOk(await old.api('PATCH', '/api/v1/settings', { as: other, params: { email_address_visibility: 3 } }));
    assert.deepEqual(r.ignored_parameters_unsupported, ['email_address_visibility']);
    assert.equal(assertOk(await old.api('GET', `/api/v1/users/${other.id}`, { as: member })).user.email, other.row.delivery_email);
  } finally {
    await old.close();
  }
});

test('a stand-in address is taken: nobody signs up with it, and hiding one\'s address never takes another\'s real one', async () => {
  // Hidden: `email` becomes user{id}@parley.test, which is now nobody else's to sign up with.
  const hidden = await t.createUser({ name: 'Hidden Holder', email: 'hidden.holder@example.org' });
  await setVisibility(hidden, 4);
  const standIn = `user${hidden.id}@parley.test`;
  const dup = await t.api('POST', '/api/v1/users', { params: { email: standIn, password: 'pw-12345678', full_name: 'Stand In' } });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.msg, `Email '${standIn}' already in use`);
  const change = await t.api('PATCH', '/api/v1/settings', { as: bob, params: { email: standIn } });
  assert.equal(change.status, 400);
  assert.equal(change.body.msg, 'Already has an account.');
  await setVisibility(hidden, 1);

  // Someone's real, visible address is another user's stand-in: hiding answers 400, nothing changes.
  const mover = await t.createUser({ name: 'Mover Person', email: 'mover.person@example.org' });
  const squatter = await t.createUser({ name: 'Real Address', email: `user${mover.id}@parley.test` });
  const refused = await t.api('PATCH', '/api/v1/settings', { as: mover, params: { email_address_visibility: 4 } });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.msg, `Email 'user${mover.id}@parley.test' already in use`);
  assert.equal((await register(mover, ['user_settings'])).user_settings.email_address_visibility, 1);
  const seen = assertOk(await t.api('GET', `/api/v1/users/${squatter.id}`, { as: bob })).user;
  assert.equal(seen.email, `user${mover.id}@parley.test`);
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${mover.id}`, { as: bob })).user.email, 'mover.person@example.org');
});
