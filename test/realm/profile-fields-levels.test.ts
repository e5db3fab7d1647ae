import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// Custom profile fields' later levels: display_in_profile_summary (146, at most two fields,
// not for long texts or person pickers), pronouns (151), required (244), PATCH parameters
// all optional (252); and that level 122 shows none of the new keys.
let t: TestApp;
let t122: TestApp;
let log: EventLog;
let bob: TestUser, admin: TestUser;
let admin122: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  ({ bob } = await t.createUsers(people('bob')));
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  t122 = await testApp({ featureLevel: 122 });
  admin122 = await t122.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
});
after(async () => {
  await t.close();
  await t122.close();
});

const call = (app: TestApp, method: string, url: string, as: TestUser, params: Record<string, unknown> = {}) =>
  app.api(method, `/api/v1${url}`, { as, params });
const create = (params: Record<string, unknown>) => call(t, 'POST', '/realm/profile_fields', admin, params);
const patch = (id: number, params: Record<string, unknown>) => call(t, 'PATCH', `/realm/profile_fields/${id}`, admin, params);
const fields = async () => assertOk(await call(t, 'GET', '/realm/profile_fields', bob)).custom_fields as Array<Record<string, unknown>>;
const field = async (id: number) => (await fields()).find((f) => f.id === id)!;
const LIMIT = 'Only 2 custom profile fields can be displayed in the profile summary.';
const ids: Record<string, number> = {};

test('display_in_profile_summary: stored, shown only when true, at most two fields, events to everyone', async () => {
  log.clear();
  ids.phone = assertOk(await create({ name: 'Phone', field_type: 1, display_in_profile_summary: true })).id;
  const { event, userIds } = log.one('custom_profile_fields');
  assert.deepEqual(sorted(userIds), sorted([t.owner.id, bob.id, admin.id]));
  assert.deepEqual(event.fields, await fields());
  assert.deepEqual(await field(ids.phone), {
    id: ids.phone, name: 'Phone', type: 1, hint: '', field_data: '', order: ids.phone, required: false, display_in_profile_summary: true,
  });
  ids.site = assertOk(await create({ name: 'Website', field_type: 5 })).id;
  assert.equal('display_in_profile_summary' in (await field(ids.site)), false);
  ids.github = assertOk(await create({ field_type: 7, field_data: { subtype: 'github' }, display_in_profile_summary: true })).id;
  assert.equal((await field(ids.github)).display_in_profile_summary, true);
  // The limit, before any other check (Zulip checks it first).
  assertError(await create({ name: 'Third', field_type: 1, display_in_profile_summary: true }), LIMIT);
  assertError(await create({ name: '', field_type: 99, display_in_profile_summary: true }), LIMIT);
  assertError(await patch(ids.site, { display_in_profile_summary: true }), LIMIT);
  // A field already in the summary may say so again.
  assertOk(await patch(ids.phone, { display_in_profile_summary: true }));
  // A default external account may change its summary flag, nothing else.
  assertOk(await patch(ids.github, { display_in_profile_summary: false }));
  assert.equal('display_in_profile_summary' in (await field(ids.github)), false);
  assertError(await patch(ids.github, { name: 'Hub' }), 'Default custom field cannot be updated.');
  assertOk(await patch(ids.github, { name: 'GitHub', field_data: { subtype: 'github' }, display_in_profile_summary: true }));
  assert.equal((await field(ids.github)).display_in_profile_summary, true);
  assertOk(await patch(ids.github, { display_in_profile_summary: false }));
  // Long texts and person pickers cannot be in the summary.
  const TYPE_ERR = 'Field type not supported for display in profile summary.';
  assertError(await create({ name: 'Bio', field_type: 2, display_in_profile_summary: true }), TYPE_ERR);
  assertError(await create({ name: 'Mentor', field_type: 6, display_in_profile_summary: true }), TYPE_ERR);
  ids.bio = assertOk(await create({ name: 'Bio', field_type: 2 })).id;
  assertError(await patch(ids.bio, { display_in_profile_summary: true }), TYPE_ERR);
  assertError(await create({ name: 'x', field_type: 1, display_in_profile_summary: 1 }), 'display_in_profile_summary is not a boolean');
  const reg = assertOk(await call(t, 'POST', '/register', bob, { fetch_event_types: ['custom_profile_fields'] }));
  assert.deepEqual(reg.custom_profile_fields, await fields());
});

test('pronouns (type 8): created, listed in custom_profile_field_types, values are short texts', async () => {
  ids.pronouns = assertOk(await create({ name: 'Pronouns', field_type: 8, display_in_profile_summary: true })).id;
  assert.equal((await field(ids.pronouns)).type, 8);
  const reg = assertOk(await call(t, 'POST', '/register', bob, { fetch_event_types: ['custom_profile_fields'] }));
  assert.deepEqual(reg.custom_profile_field_types.PRONOUNS, { id: 8, name: 'Pronouns' });
  assertOk(await call(t, 'PATCH', '/users/me/profile_data', bob, { data: [{ id: ids.pronouns, value: 'they/them' }] }));
  const me = assertOk(await call(t, 'GET', `/users/${bob.id}`, bob, { include_custom_profile_fields: true })).user;
  assert.deepEqual(me.profile_data[String(ids.pronouns)], { value: 'they/them' });
  assertError(await call(t, 'PATCH', '/users/me/profile_data', bob, { data: [{ id: ids.pronouns, value: 'x'.repeat(51) }] }),
    'Pronouns is too long (limit: 50 characters)');
  assertOk(await patch(ids.pronouns, { display_in_profile_summary: false }));
});

test('required: stored and shown (always, from level 244), changed alone by PATCH', async () => {
  ids.dept = assertOk(await create({ name: 'Department', field_type: 1, required: true })).id;
  assert.equal((await field(ids.dept)).required, true);
  log.clear();
  assertOk(await patch(ids.dept, { required: false }));
  assert.equal(log.one('custom_profile_fields').event.fields.find((f: { id: number }) => f.id === ids.dept).required, false);
  assert.equal((await field(ids.dept)).required, false);
  assertError(await create({ name: 'y', field_type: 1, required: 1 }), 'required is not a boolean');
});

test('PATCH: every parameter optional (252), what is left out keeps its value', async () => {
  ids.editor = assertOk(await create({ name: 'Editor', hint: 'Pick one', field_type: 3, field_data: { vim: { text: 'Vim', order: '1' } } })).id;
  const before = await field(ids.editor);
  assertOk(await patch(ids.editor, { hint: 'Pick one editor' }));
  assert.deepEqual(await field(ids.editor), { ...before, hint: 'Pick one editor' });
  assertOk(await patch(ids.editor, { name: ' Favourite editor ' }));
  assert.deepEqual(await field(ids.editor), { ...before, hint: 'Pick one editor', name: 'Favourite editor' });
  assertOk(await patch(ids.editor, {}));
  assert.equal((await field(ids.editor)).field_data, before.field_data);
  assertError(await patch(ids.editor, { name: ' ' }), 'Label cannot be blank.');
  assertError(await patch(ids.editor, { field_data: {} }), 'Field must have at least one choice.');
  assertError(await patch(ids.editor, { name: 'Phone' }), 'A field with that label already exists.');
});

test('level 122: no new keys, no pronouns type, a missing label still blank', async () => {
  const id = assertOk(await call(t122, 'POST', '/realm/profile_fields', admin122, { name: 'Phone', field_type: 1, display_in_profile_summary: true, required: true })).id;
  const list = assertOk(await call(t122, 'GET', '/realm/profile_fields', admin122)).custom_fields;
  assert.deepEqual(list, [{ id, name: 'Phone', type: 1, hint: '', field_data: '', order: id }]);
  const reg = assertOk(await call(t122, 'POST', '/register', admin122, { fetch_event_types: ['custom_profile_fields'] }));
  assert.deepEqual(reg.custom_profile_fields, list);
  assert.equal(reg.custom_profile_field_types.PRONOUNS, undefined);
  assertError(await call(t122, 'PATCH', `/realm/profile_fields/${id}`, admin122, { hint: 'h' }), 'Label cannot be blank.');
});
