import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { webCall } from '../helpers/web.js';
import { transact } from '../../src/actions/transaction.js';
import { doSetCanChangeUserEmails } from '../../src/actions/user-update.js';
import { Role } from '../../src/lib/roles.js';

/**
 * GET /users/{email} as Zulip 10 looks up (302); PATCH /users/{email} and new_email (313);
 * realm_incoming_webhook_bots' config_options (318); group_ids on invitations (322).
 */
const apps: TestApp[] = [];
let t: TestApp;
let old: TestApp;
after(async () => { for (const a of apps) await a.close(); });
before(async () => {
  t = await testApp({ featureLevel: 371 });
  old = await testApp({ featureLevel: 277 });
  apps.push(t, old);
});


test('302: a real address finds only users whose visibility shows it to the requester\'s role; the dummy address always', async () => {
  const hidden = await t.createUser({ name: 'Hana Hidden', email: 'hana@example.com' });
  const open = await t.createUser({ name: 'Otto Open', email: 'otto@example.com' });
  const member = await t.createUser({ name: 'Max Member', email: 'max@example.com' });
  // Administrators only (3).
  assertOk(await t.api('PATCH', '/api/v1/settings', { as: hidden, params: { email_address_visibility: 3 } }));
  const shown = assertOk(await t.api('GET', `/api/v1/users/${hidden.id}`, { as: member })).user.email as string;
  assert.notEqual(shown, hidden.email, 'members see the dummy address');
  assertError(await t.api('GET', `/api/v1/users/${encodeURIComponent(hidden.email)}`, { as: member }), 'No such user');
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${encodeURIComponent(shown)}`, { as: member })).user.user_id, hidden.id);
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${encodeURIComponent(hidden.email.toUpperCase())}`)).user.user_id, hidden.id, 'administrators, any case');
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${encodeURIComponent(open.email)}`, { as: member })).user.user_id, open.id);
  assertError(await t.api('GET', '/api/v1/users/nobody%40example.com', { as: member }), 'No such user');
});

test('313: PATCH /users/{email} finds the user as GET does; new_email is refused (no one holds can_change_user_emails)', async () => {
  const target = await t.createUser({ name: 'Tina Target', email: 'tina.t@example.com' });
  const log = new EventLog(t);
  assertOk(await t.api('PATCH', `/api/v1/users/${encodeURIComponent(target.email)}`, { params: { full_name: 'Tina Renamed' } }));
  assert.equal(assertOk(await t.api('GET', `/api/v1/users/${target.id}`)).user.full_name, 'Tina Renamed');
  assert.ok(log.find('realm_user', 'update').some((e) => (e.event.person as { full_name?: string }).full_name === 'Tina Renamed'));
  assertError(await t.api('PATCH', '/api/v1/users/nobody%40example.com', { params: { full_name: 'X' } }), 'No such user');
  assertError(await t.api('PATCH', `/api/v1/users/${target.id}`, { params: { new_email: 'tina@example.com' } }), 'User not authorized to change user emails');
  const member = await t.createUser({ name: 'Mo Member', email: 'mo@example.com' });
  assertError(await t.api('PATCH', `/api/v1/users/${encodeURIComponent(target.email)}`, { as: member, params: { full_name: 'Nope' } }),
    'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
});

test('313: new_email with the can_change_user_emails special permission: checked, then changed at once and told', async () => {
  const target = await t.createUser({ name: 'Nina New', email: 'nina.old@example.com' });
  const other = await t.createUser({ name: 'Otto Other', email: 'otto.other@example.com' });
  await transact(t.app.ctx, (tx) => doSetCanChangeUserEmails(tx, t.owner.row, true));
  try {
    assertError(await t.api('PATCH', `/api/v1/users/${target.id}`, { params: { new_email: 'not an address' } }), 'Invalid address.');
    assertError(await t.api('PATCH', `/api/v1/users/${target.id}`, { params: { new_email: other.email } }), 'Already has an account.');
    const log = new EventLog(t);
    assertOk(await t.api('PATCH', `/api/v1/users/${target.id}`, { params: { new_email: 'nina.new@example.com' } }));
    assert.equal(assertOk(await t.api('GET', `/api/v1/users/${target.id}`)).user.delivery_email, 'nina.new@example.com');
    const updates = log.find('realm_user', 'update').map((e) => e.event.person as Record<string, unknown>);
    assert.ok(updates.some((p) => p.user_id === target.id && p.delivery_email === 'nina.new@example.com'), JSON.stringify(updates));
    assert.ok(updates.some((p) => p.user_id === target.id && p.new_email === 'nina.new@example.com'), 'a visible address is the API email too');
    // Without the permission, another administrator is refused.
    const admin = await t.createUser({ name: 'Ada Plain Admin', email: 'ada.plain@example.com', role: Role.ADMINISTRATOR });
    assertError(await t.api('PATCH', `/api/v1/users/${target.id}`, { as: admin, params: { new_email: 'nina.again@example.com' } }), 'User not authorized to change user emails');
  } finally {
    await transact(t.app.ctx, (tx) => doSetCanChangeUserEmails(tx, t.owner.row, false));
  }
});

test('318: config_options (a list) from 318, config (an object) before', async () => {
  const now = assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm_incoming_webhook_bots'] } }));
  for (const b of now.realm_incoming_webhook_bots) {
    assert.deepEqual(b.config_options, []);
    assert.equal('config' in b, false);
  }
  const then = assertOk(await old.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm_incoming_webhook_bots'] } }));
  for (const b of then.realm_incoming_webhook_bots) {
    assert.deepEqual(b.config, {});
    assert.equal('config_options' in b, false);
  }
});

test('322: group_ids on an invitation: the new user joins those groups, with the event; unknown and system groups refused', async () => {
  const group = assertOk(await t.api('POST', '/api/v1/user_groups/create', { params: { name: 'newcomers', description: 'new', members: [t.owner.id] } }));
  const groups = assertOk(await t.api('GET', '/api/v1/user_groups')).user_groups as Array<{ id: number; name: string; is_system_group: boolean }>;
  const newcomers = groups.find((g) => g.name === 'newcomers')!.id;
  void group;
  const system = groups.find((g) => g.is_system_group)!.id;
  assertError(await t.api('POST', '/api/v1/invites/multiuse', { params: { group_ids: [999999] } }), 'Invalid user group');
  assertError(await t.api('POST', '/api/v1/invites/multiuse', { params: { group_ids: [system] } }), 'Insufficient permission');
  assertError(await t.api('POST', '/api/v1/invites', { params: { invitee_emails: 'x@example.com', stream_ids: [], group_ids: [999999] } }), 'Invalid user group');
  const link = assertOk(await t.api('POST', '/api/v1/invites/multiuse', { params: { group_ids: [newcomers] } })).invite_link as string;
  const key = /\/join\/([a-z0-9]+)\//.exec(link)![1]!;
  const log = new EventLog(t);
  const reg = await webCall(t, 'POST', '/accounts/register', { params: { key, email: 'joiner@example.com', full_name: 'Jo Joiner', password: 'long-enough-1' } });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const joined = log.find('user_group', 'add_members').filter((e) => e.event.group_id === newcomers);
  assert.equal(joined.length, 1);
  const after = assertOk(await t.api('GET', '/api/v1/user_groups')).user_groups as Array<{ id: number; members: number[] }>;
  assert.equal(after.find((g) => g.id === newcomers)!.members.length, 2);
});
