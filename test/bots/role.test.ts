import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';

// PATCH /bots/{bot_id} `role` (feature level 130): Zulip's rules of PATCH /users/{id}
// (ownership by owners only, any role by administrators only, the bot's owner alone
// refused), the realm_user update event to everyone, an unknown role refused first.
let t: TestApp;
let log: EventLog;
let admin: TestUser, alice: TestUser, bob: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  alice = await t.createUser({ name: 'Alice Smith' });
  bob = await t.createUser({ name: 'Bob Jones' });
});
after(() => t.close());

let n = 0;
async function newBot(owner: TestUser): Promise<number> {
  n += 1;
  return assertOk(await t.api('POST', '/api/v1/bots', { as: owner, params: { full_name: `Role Bot ${n}`, short_name: `rb${n}` } })).user_id;
}
const patch = (as: TestUser | null, botId: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/bots/${botId}`, { as, params });
const roleOf = async (id: number) => assertOk(await t.api('GET', `/api/v1/users/${id}`, { as: bob })).user.role;

test('an administrator changes a bot\'s role: realm_user update to every active user', async () => {
  const botId = await newBot(alice);
  log.clear();
  assertOk(await patch(admin, botId, { role: Role.MODERATOR }));
  const { event, userIds } = log.one('realm_user', 'update');
  assert.deepEqual(event, { type: 'realm_user', op: 'update', person: { user_id: botId, role: Role.MODERATOR } });
  for (const u of [t.owner, admin, alice, bob]) assert.ok(userIds.includes(u.id));
  assert.equal(await roleOf(botId), Role.MODERATOR);
  // The same role again: nothing to do, no event.
  log.clear();
  assertOk(await patch(admin, botId, { role: Role.MODERATOR }));
  assert.deepEqual(log.find('realm_user'), []);
});

test('Zulip\'s rules: owners for ownership, administrators otherwise; unknown roles refused', async () => {
  const botId = await newBot(alice);
  // The bot's owner may edit it, but not its role (unless it stays the same).
  assertError(await patch(alice, botId, { role: Role.ADMINISTRATOR }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await patch(alice, botId, { role: Role.MEMBER }));
  assertError(await patch(admin, botId, { role: Role.OWNER }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await patch(t.owner, botId, { role: Role.OWNER }));
  assert.equal(await roleOf(botId), Role.OWNER);
  assertError(await patch(admin, botId, { role: Role.MEMBER }), 'Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await patch(t.owner, botId, { role: Role.GUEST }));
  assert.equal(await roleOf(botId), Role.GUEST);
  assertError(await patch(admin, botId, { role: 500 }), 'Invalid role');
  assertError(await patch(admin, 99999, { role: 500 }), 'Invalid role');
  assertError(await patch(bob, botId, { role: Role.MEMBER }), 'Insufficient permission');
  assertError(await patch(admin, botId, { role: 'x' }), 'role is not an integer');
  // A refused change leaves the rest of the request undone too.
  assertError(await patch(alice, botId, { full_name: 'Renamed Bot', role: Role.MEMBER }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const row = await t.app.ctx.store.db.selectFrom('users').selectAll().where('id', '=', botId).executeTakeFirstOrThrow();
  assert.notEqual(row.full_name, 'Renamed Bot');
});
