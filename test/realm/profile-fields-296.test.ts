import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

/** Level 296: editable_by_user on custom profile fields, enforced on users' own edits. */
const apps: TestApp[] = [];
let t: TestApp;
let old: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 277 });
  apps.push(t, old);
});

const fields = async (app: TestApp) => assertOk(await app.api('GET', '/api/v1/realm/profile_fields')).custom_fields as Array<Record<string, unknown>>;

test('editable_by_user: true unless given, shown always from 296, changed by PATCH with an event to everyone', async () => {
  const member = await t.createUser({ name: 'Mel Member' });
  const a = assertOk(await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Team', field_type: 1 } })).id as number;
  const b = assertOk(await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Badge', field_type: 1, editable_by_user: false } })).id as number;
  let list = await fields(t);
  assert.equal(list.find((f) => f.id === a)!.editable_by_user, true);
  assert.equal(list.find((f) => f.id === b)!.editable_by_user, false);
  const log = new EventLog(t);
  assertOk(await t.api('PATCH', `/api/v1/realm/profile_fields/${a}`, { params: { editable_by_user: false } }));
  const ev = log.find('custom_profile_fields');
  assert.equal(ev.length, 1);
  assert.ok(ev[0]!.userIds.includes(member.id));
  assert.equal((ev[0]!.event.fields as Array<Record<string, unknown>>).find((f) => f.id === a)!.editable_by_user, false);
  list = await fields(t);
  assert.equal(list.find((f) => f.id === a)!.editable_by_user, false);
  assert.equal(list.find((f) => f.id === a)!.name, 'Team', 'the rest kept');
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: member, params: { fetch_event_types: ['custom_profile_fields'] } }));
  assert.equal(reg.custom_profile_fields.find((f: { id: number }) => f.id === b).editable_by_user, false);
});

test('a member cannot set or clear a field the organization keeps; an administrator can, for themselves and for others', async () => {
  const member = await t.createUser({ name: 'Kim Kept' });
  const kept = assertOk(await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Employee id', field_type: 1, editable_by_user: false } })).id as number;
  const free = assertOk(await t.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Hobby', field_type: 1 } })).id as number;
  const msg = 'You are not allowed to change this field. Contact an administrator to update it.';
  assertError(await t.api('PATCH', '/api/v1/users/me/profile_data', { as: member, params: { data: [{ id: kept, value: 'E-1' }] } }), msg);
  // Nothing of a refused request is stored, the editable item included.
  assertError(await t.api('PATCH', '/api/v1/users/me/profile_data', { as: member, params: { data: [{ id: free, value: 'chess' }, { id: kept, value: 'E-1' }] } }), msg);
  assertOk(await t.api('PATCH', '/api/v1/users/me/profile_data', { as: member, params: { data: [{ id: free, value: 'go' }] } }));
  assertOk(await t.api('PATCH', `/api/v1/users/${member.id}`, { params: { profile_data: [{ id: kept, value: 'E-7' }] } }));
  assertError(await t.api('DELETE', '/api/v1/users/me/profile_data', { as: member, params: { data: [kept] } }), msg);
  const mine = assertOk(await t.api('GET', `/api/v1/users/${member.id}`, { as: member, params: { include_custom_profile_fields: true } })).user.profile_data;
  assert.equal(mine[String(kept)].value, 'E-7');
  assert.equal(mine[String(free)].value, 'go');
  assertOk(await t.api('PATCH', '/api/v1/users/me/profile_data', { params: { data: [{ id: kept, value: 'E-0' }] } }));
});

test('at 277 the key is not shown; the rule applies at any level', async () => {
  const member = await old.createUser({ name: 'Oli Old' });
  const kept = assertOk(await old.api('POST', '/api/v1/realm/profile_fields', { params: { name: 'Desk', field_type: 1, editable_by_user: false } })).id as number;
  assert.equal('editable_by_user' in (await fields(old)).find((f) => f.id === kept)!, false);
  assertError(await old.api('PATCH', '/api/v1/users/me/profile_data', { as: member, params: { data: [{ id: kept, value: '12' }] } }),
    'You are not allowed to change this field. Contact an administrator to update it.');
});
