import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, createAcme, ACME_HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// Custom profile fields end to end: administrators define them (Zulip 5's validation and
// strings), everyone sets their own values (checked per type), users carry profile_data
// when asked (never bots), and the custom_profile_fields / realm_user update events.
let t: TestApp;
let log: EventLog;
let alice: TestUser, bob: TestUser, guest: TestUser, admin: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  // Zulip 5's contract (the spec's level); the later levels' keys and optional PATCH parameters: profile-fields-levels.test.ts.
  t = await testApp({ featureLevel: 122 });
  log = new EventLog(t);
  ({ alice, bob, guest } = await t.createUsers(people('alice', 'bob', 'guest')));
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  bot = await t.createBot(alice, { fullName: 'Field Bot', shortName: 'fieldbot' });
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const call = (method: string, url: string, as: TestUser | null, params: Record<string, unknown> = {}) =>
  t.api(method, `/api/v1${url}`, { as, params, ...(as === acmeOwner ? { host: ACME_HOST } : {}) });
const createField = (params: Record<string, unknown>, as: TestUser = admin) => call('POST', '/realm/profile_fields', as, params);
const fields = async (as: TestUser = bob) => assertOk(await call('GET', '/realm/profile_fields', as)).custom_fields as Array<Record<string, any>>;
const setData = (as: TestUser | null, data: unknown) => call('PATCH', '/users/me/profile_data', as, { data });
const everyone = () => sorted([t.owner.id, alice.id, bob.id, guest.id, admin.id, bot.id]);
const OPTIONS = { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } };
const ids: Record<string, number> = {};

test('every route requires authentication', async () => {
  assertUnauthenticated(await call('GET', '/realm/profile_fields', null));
  assertUnauthenticated(await createField({ name: 'x', field_type: 1 }, null as unknown as TestUser));
  assertUnauthenticated(await call('PATCH', '/realm/profile_fields', null, { order: [] }));
  assertUnauthenticated(await call('PATCH', '/realm/profile_fields/1', null, { name: 'x' }));
  assertUnauthenticated(await call('DELETE', '/realm/profile_fields/1', null));
  assertUnauthenticated(await setData(null, []));
  assertUnauthenticated(await call('DELETE', '/users/me/profile_data', null, { data: [1] }));
});

test('create: the seven types; the new field last, the whole list to everyone', async () => {
  const specs: Array<[string, Record<string, unknown>]> = [
    ['phone', { name: ' Phone ', hint: 'Your number', field_type: 1 }],
    ['bio', { name: 'Biography', field_type: 2 }],
    ['editor', { name: 'Favorite editor', field_type: 3, field_data: OPTIONS }],
    ['birthday', { name: 'Birthday', field_type: 4 }],
    ['site', { name: 'Website', field_type: 5 }],
    ['mentor', { name: 'Mentor', field_type: 6 }],
    ['github', { field_type: 7, field_data: { subtype: 'github' } }],
    ['mastodon', { name: 'Mastodon', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://mastodon.social/@%(username)s' } }],
  ];
  for (const [key, params] of specs) {
    log.clear();
    ids[key] = assertOk(await createField(params)).id;
    const { event, userIds } = log.one('custom_profile_fields');
    assert.deepEqual(sorted(userIds), everyone());
    assert.deepEqual(event, { type: 'custom_profile_fields', fields: await fields() });
  }
  const list = await fields(guest);
  assert.deepEqual(list.map((f) => f.id), Object.values(ids));
  assert.deepEqual(list[0], { id: ids.phone, name: 'Phone', type: 1, hint: 'Your number', field_data: '', order: ids.phone });
  assert.deepEqual(JSON.parse(list[2]!.field_data), OPTIONS);
  assert.deepEqual(list[6], { id: ids.github, name: 'GitHub', type: 7, hint: 'Enter your GitHub username', field_data: '{"subtype":"github"}', order: ids.github });
  const reg = assertOk(await call('POST', '/register', bob, { fetch_event_types: ['custom_profile_fields'] }));
  assert.deepEqual(reg.custom_profile_fields, list);
  assert.equal(reg.custom_profile_field_types.SELECT.id, 3);
  const realm = assertOk(await call('POST', '/register', bob, { fetch_event_types: ['realm'] }));
  assert.deepEqual(realm.realm_default_external_accounts.github,
    { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub', hint: 'Enter your GitHub username' });
  assert.deepEqual(await fields(acmeOwner), []);
});

test('create: Zulip\'s errors, administrators only', async () => {
  assertError(await createField({ name: 'x', field_type: 1 }, bob), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await createField({ name: 'x', field_type: 1 }, guest), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await createField({ name: '  ', field_type: 1 }), 'Label cannot be blank.');
  assertError(await createField({ field_type: 99 }), 'Label cannot be blank.');
  assertError(await createField({ name: 'x', field_type: 99 }), 'Invalid field type.');
  assertError(await createField({ name: 'Phone', field_type: 2 }), 'A field with that label already exists.');
  assertError(await createField({ name: 'x'.repeat(41), field_type: 1 }), 'name is too long (limit: 40 characters)');
  assertError(await createField({ name: 'x', hint: 'h'.repeat(81), field_type: 1 }), 'hint is too long (limit: 80 characters)');
  assertError(await createField({ name: 'x' }), "Missing 'field_type' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'field_type' });
  assertError(await createField({ name: 'x', field_type: 3, field_data: '[]' }), 'field_data is not a dict');
  // List of options.
  assertError(await createField({ name: 'x', field_type: 3 }), 'Field must have at least one choice.');
  assertError(await createField({ name: 'x', field_type: 3, field_data: { a: { text: 'A' } } }), 'order key is missing from field_data');
  assertError(await createField({ name: 'x', field_type: 3, field_data: { a: { text: '', order: '1' } } }), 'field_data["text"] cannot be blank.');
  assertError(await createField({ name: 'x', field_type: 3, field_data: { a: { text: 'A', order: '1', x: 1 } } }), 'Unexpected arguments: x');
  assertError(await createField({ name: 'x', field_type: 3, field_data: { ' ': { text: 'A', order: '1' } } }), "'value' cannot be blank.");
  assertError(await createField({ name: 'x', field_type: 3, field_data: { a: { text: 'A', order: '1' }, b: { text: 'A', order: '2' } } }), 'Field must not have duplicate choices.');
  assertError(await createField({ name: 'x', field_type: 3, field_data: { a: 'A' } }), 'field_data is not a dict');
  // External accounts.
  assertError(await createField({ name: 'x', field_type: 7 }), 'subtype key is missing from field_data');
  assertError(await createField({ name: 'x', field_type: 7, field_data: { subtype: 'myspace' } }), 'Invalid external account type');
  assertError(await createField({ name: 'x', field_type: 7, field_data: { subtype: 'custom' } }), 'Custom external account must define URL pattern');
  assertError(await createField({ name: 'x', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://x.com/' } }), "URL pattern must contain '%(username)s'.");
  assertError(await createField({ name: 'x', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'not a url %(username)s' } }), 'field_data["url_pattern"] is not a URL');
  assertError(await createField({ field_type: 7, field_data: { subtype: 'github' } }), 'A field with that label already exists.');
});

test('reorder, update and delete, with their events and errors', async () => {
  const order = Object.values(ids).reverse();
  log.clear();
  assertOk(await call('PATCH', '/realm/profile_fields', admin, { order }));
  assert.deepEqual((await fields()).map((f) => f.id), order);
  assert.deepEqual(log.one('custom_profile_fields').event, { type: 'custom_profile_fields', fields: await fields() });
  assertError(await call('PATCH', '/realm/profile_fields', admin, { order: order.slice(1) }), 'Invalid order mapping.');
  assertError(await call('PATCH', '/realm/profile_fields', bob, { order }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');

  log.clear();
  assertOk(await call('PATCH', `/realm/profile_fields/${ids.editor}`, admin, { name: 'Editor', hint: 'Pick one', field_data: { ...OPTIONS, nano: { text: 'Nano', order: '3' } } }));
  const editor = (await fields()).find((f) => f.id === ids.editor)!;
  assert.deepEqual([editor.name, editor.hint, Object.keys(JSON.parse(editor.field_data))], ['Editor', 'Pick one', ['vim', 'emacs', 'nano']]);
  log.one('custom_profile_fields');
  assertError(await call('PATCH', `/realm/profile_fields/${ids.editor}`, admin, { name: 'Editor' }), 'Field must have at least one choice.');
  assertError(await call('PATCH', `/realm/profile_fields/${ids.phone}`, admin, { name: 'Biography' }), 'A field with that label already exists.');
  assertError(await call('PATCH', `/realm/profile_fields/${ids.phone}`, admin, { hint: 'no label' }), 'Label cannot be blank.');
  assertError(await call('PATCH', `/realm/profile_fields/${ids.github}`, admin, { name: 'Hub' }), 'Default custom field cannot be updated.');
  assertError(await call('PATCH', '/realm/profile_fields/99999', admin, { name: 'x' }), 'Field id 99999 not found.');
  assertError(await call('PATCH', `/realm/profile_fields/${ids.phone}`, bob, { name: 'x' }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await call('PATCH', `/realm/profile_fields/${ids.phone}`, admin, { name: 'Phone number' }));

  const doomed = assertOk(await createField({ name: 'Doomed', field_type: 1 })).id;
  assertOk(await setData(alice, [{ id: doomed, value: 'x' }]));
  log.clear();
  assertOk(await call('DELETE', `/realm/profile_fields/${doomed}`, admin));
  assert.deepEqual(log.one('custom_profile_fields').event.fields, await fields());
  assertError(await call('DELETE', `/realm/profile_fields/${doomed}`, admin), `Field id ${doomed} not found.`);
  assertError(await call('DELETE', `/realm/profile_fields/${ids.phone}`, bob), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const acmeField = assertOk(await createField({ name: 'Acme only', field_type: 1 }, acmeOwner)).id;
  assertError(await call('DELETE', `/realm/profile_fields/${acmeField}`, admin), `Field id ${acmeField} not found.`);
  const users = assertOk(await call('GET', '/users', bob, { include_custom_profile_fields: true })).members;
  assert.equal(users.find((u: any) => u.user_id === alice.id).profile_data[String(doomed)], undefined);
});

test('values: each type set and shown; events carry them; profile_data only when asked, never for bots', async () => {
  log.clear();
  assertOk(await setData(alice, [
    { id: ids.phone, value: '**555**' }, { id: ids.bio, value: 'Likes *vim*' }, { id: ids.editor, value: 'vim' },
    { id: ids.birthday, value: '1990-02-28' }, { id: ids.site, value: 'https://example.com/alice' }, { id: ids.mentor, value: [bob.id] },
    { id: ids.github, value: 'alice-gh' },
  ]));
  const events = log.find('realm_user', 'update');
  assert.equal(events.length, 7);
  assert.deepEqual(events[0]!.event, { type: 'realm_user', op: 'update', person: { user_id: alice.id, custom_profile_field: { id: ids.phone, value: '**555**', rendered_value: '<p><strong>555</strong></p>' } } });
  assert.deepEqual(events[5]!.event, { type: 'realm_user', op: 'update', person: { user_id: alice.id, custom_profile_field: { id: ids.mentor, value: `[${bob.id}]` } } });
  assert.deepEqual(sorted(events[0]!.userIds), everyone());
  const expected = {
    [ids.phone!]: { value: '**555**', rendered_value: '<p><strong>555</strong></p>' },
    [ids.bio!]: { value: 'Likes *vim*', rendered_value: '<p>Likes <em>vim</em></p>' },
    [ids.editor!]: { value: 'vim' }, [ids.birthday!]: { value: '1990-02-28' }, [ids.site!]: { value: 'https://example.com/alice' },
    [ids.mentor!]: { value: `[${bob.id}]` }, [ids.github!]: { value: 'alice-gh' },
  };
  const listed = assertOk(await call('GET', '/users', bob, { include_custom_profile_fields: true })).members;
  assert.deepEqual(listed.find((u: any) => u.user_id === alice.id).profile_data, expected);
  assert.deepEqual(listed.find((u: any) => u.user_id === bob.id).profile_data, {});
  assert.ok(!('profile_data' in listed.find((u: any) => u.user_id === bot.id)));
  const plain = assertOk(await call('GET', '/users', bob)).members;
  assert.ok(plain.every((u: any) => !('profile_data' in u)));
  assert.deepEqual(assertOk(await call('GET', `/users/${alice.id}`, bob, { include_custom_profile_fields: true })).user.profile_data, expected);
  assert.ok(!('profile_data' in assertOk(await call('GET', `/users/${alice.id}`, bob)).user));
  assert.deepEqual(assertOk(await call('GET', '/users/me', alice)).profile_data, expected);
  const reg = assertOk(await call('POST', '/register', bob, { fetch_event_types: ['realm_user'] }));
  assert.deepEqual(reg.realm_users.find((u: any) => u.user_id === alice.id).profile_data, expected);
  assert.ok(!('profile_data' in reg.realm_users.find((u: any) => u.user_id === bot.id)));

  // The same value again sends nothing.
  log.clear();
  assertOk(await setData(alice, [{ id: ids.editor, value: 'vim' }]));
  assert.equal(log.find('realm_user').length, 0);
  // Deleting: a null value in the event; a field without a value is fine; an unknown field is not.
  assertOk(await call('DELETE', '/users/me/profile_data', alice, { data: [ids.editor, ids.mentor] }));
  assert.deepEqual(log.find('realm_user').map((e) => e.event.person), [
    { user_id: alice.id, custom_profile_field: { id: ids.editor, value: null } }, { user_id: alice.id, custom_profile_field: { id: ids.mentor, value: null } },
  ]);
  assertOk(await call('DELETE', '/users/me/profile_data', alice, { data: [ids.editor] }));
  assertError(await call('DELETE', '/users/me/profile_data', alice, { data: [99999] }), 'Field id 99999 not found.');
});

test('values: Zulip\'s validation of each type, and of the request', async () => {
  const bad = async (id: number | undefined, value: unknown, msg: string) => assertError(await setData(bob, [{ id, value }]), msg);
  await bad(ids.phone, 'x'.repeat(51), 'Phone number is too long (limit: 50 characters)');
  await bad(ids.phone, [1], 'Phone number is not a string');
  await bad(ids.bio, 'x'.repeat(501), 'Biography is too long (limit: 500 characters)');
  await bad(ids.editor, 'notepad', "'notepad' is not a valid choice for 'Editor'.");
  await bad(ids.birthday, '1990-02-30', 'Birthday is not a date');
  await bad(ids.birthday, 'yesterday', 'Birthday is not a date');
  await bad(ids.site, 'example', 'Website is not a URL');
  await bad(ids.mentor, 'bob', 'User IDs is not a list');
  await bad(ids.mentor, Array.from({ length: 1001 }, (_, i) => i + 1), 'User IDs is too long (limit: 1000 items)');
  await bad(ids.mentor, [99999], 'Invalid user ID: 99999');
  await bad(ids.mentor, [acmeOwner.id], `Invalid user ID: ${acmeOwner.id}`);
  await bad(ids.mentor, [bot.id], `User with ID ${bot.id} is a bot`);
  await bad(ids.github, 'g'.repeat(51), 'GitHub is too long (limit: 50 characters)');
  await bad(99999, 'x', 'Field id 99999 not found.');
  assertError(await setData(bob, { id: 1 }), 'data is not a list');
  assertError(await setData(bob, [1]), 'data[0] is not a dict');
  assertError(await setData(bob, [{ id: ids.phone }]), 'value key is missing from data[0]');
  assertError(await setData(bob, [{ id: 'x', value: 'y' }]), 'data[0]["id"] is not an integer');
  assertError(await setData(bob, [{ id: ids.phone, value: { a: 1 } }]), 'data[0]["value"] is not an allowed_type');
  assertError(await call('PATCH', '/users/me/profile_data', bob, {}), "Missing 'data' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'data' });
  // One bad item refuses the whole request.
  assertError(await setData(bob, [{ id: ids.phone, value: 'ok' }, { id: ids.site, value: 'nope' }]), 'Website is not a URL');
  const me = assertOk(await call('GET', '/users/me', bob));
  assert.deepEqual(me.profile_data, {});
  // Bots have no profile.
  assertError(await setData(bot, [{ id: ids.phone, value: 'x' }]), 'This endpoint does not accept bot requests.');
  assertError(await call('DELETE', '/users/me/profile_data', bot, { data: [ids.phone] }), 'This endpoint does not accept bot requests.');
  // Guests set their own.
  assertOk(await setData(guest, [{ id: ids.phone, value: '123' }]));
});

test('administrators set anyone\'s values with PATCH /users/{id}; empty values clear them', async () => {
  assertOk(await call('PATCH', `/users/${bob.id}`, admin, { profile_data: [{ id: ids.phone, value: '777' }, { id: ids.mentor, value: [alice.id] }] }));
  const data = async () => assertOk(await call('GET', `/users/${bob.id}`, alice, { include_custom_profile_fields: true })).user.profile_data;
  assert.deepEqual(await data(), { [ids.phone!]: { value: '777', rendered_value: '<p>777</p>' }, [ids.mentor!]: { value: `[${alice.id}]` } });
  log.clear();
  assertOk(await call('PATCH', `/users/${bob.id}`, admin, { profile_data: [{ id: ids.phone, value: '' }, { id: ids.mentor, value: null }] }));
  assert.deepEqual(await data(), {});
  assert.equal(log.find('realm_user', 'update').length, 2);
  assertError(await call('PATCH', `/users/${bob.id}`, admin, { profile_data: [{ id: ids.site, value: 'nope' }] }), 'Website is not a URL');
  assertError(await call('PATCH', `/users/${bob.id}`, alice, { profile_data: [{ id: ids.phone, value: '1' }] }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
});
