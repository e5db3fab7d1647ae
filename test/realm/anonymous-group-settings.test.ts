import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';

// can_mention_group as a group-setting value: an anonymous group {direct_members,
// direct_subgroups} (feature level 258) on create and PATCH, shown as the object (an id when it
// is a named group), enforced on mentions; PATCH's {new, old} (260) refusing a stale `old`.
let t: TestApp;
let log: EventLog;
let ann: TestUser, ben: TestUser, cat: TestUser, dan: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  ann = await t.createUser({ name: 'Ann Member' });
  ben = await t.createUser({ name: 'Ben Member' });
  cat = await t.createUser({ name: 'Cat Member' });
  dan = await t.createUser({ name: 'Dan Member' });
});
after(() => t.close());

const groups = async (as: TestUser = ann) => assertOk(await t.api('GET', '/api/v1/user_groups', { as })).user_groups as Array<Record<string, any>>;
const byName = async (name: string) => (await groups()).find((g) => g.name === name)!;
const create = (name: string, extra: Record<string, unknown>, members: number[] = [ann.id]) =>
  t.api('POST', '/api/v1/user_groups/create', { as: t.owner, params: { name, description: '', members, ...extra } });
const update = (id: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/user_groups/${id}`, { as: t.owner, params });
const send = (as: TestUser, content: string) => t.api('POST', '/api/v1/messages', { as, params: { type: 'private', to: JSON.stringify([ann.id]), content } });

test('create with an anonymous group: stored, shown as the object, in the add event and register', async () => {
  assertOk(await create('cats', {}, [cat.id]));
  const cats = await byName('cats');
  log.clear();
  assertOk(await create('anon-team', { can_mention_group: { direct_members: [ben.id, ben.id], direct_subgroups: [cats.id] } }));
  const value = { direct_members: [ben.id], direct_subgroups: [cats.id] };
  assert.deepEqual((await byName('anon-team')).can_mention_group, value);
  assert.deepEqual(log.one('user_group', 'add').event.group.can_mention_group, value);
  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: dan, params: { fetch_event_types: ['realm_user_groups'] } }));
  assert.deepEqual(reg.realm_user_groups.find((g: any) => g.name === 'anon-team').can_mention_group, value);
  // No members and one subgroup: that group, by its id (Zulip's parse_group_setting_value).
  assertOk(await create('one-sub', { can_mention_group: { direct_members: [], direct_subgroups: [cats.id] } }));
  assert.equal((await byName('one-sub')).can_mention_group, cats.id);
});

test('refusals: unknown users and groups, malformed values', async () => {
  assertError(await create('bad1', { can_mention_group: { direct_members: [999999], direct_subgroups: [] } }), 'Invalid user ID: 999999');
  assertError(await create('bad2', { can_mention_group: { direct_members: [], direct_subgroups: [999999, 999998] } }), 'Invalid user group ID: 999999');
  assertError(await create('bad3', { can_mention_group: { direct_members: [ben.id] } }), 'Invalid can_mention_group');
  assertError(await create('bad4', { can_mention_group: { new: ben.id } }), 'Invalid can_mention_group');
  assert.ok(!(await groups()).some((g) => g.name.startsWith('bad')));
});

test('mentions: the anonymous group\'s direct members and its subgroups\' members only', async () => {
  assertOk(await send(ben, 'hi @*anon-team*'));
  assertOk(await send(cat, 'hi @*anon-team*'));
  assertError(await send(dan, 'hi @*anon-team*'), "You are not allowed to mention user group 'anon-team'.");
  assertOk(await send(dan, 'hi @_*anon-team*'));
});

test('PATCH: a bare value, {new}, {new, old}; a stale old refused; the same value sends nothing', async () => {
  const team = await byName('anon-team');
  const cats = await byName('cats');
  const current = { direct_members: [ben.id], direct_subgroups: [cats.id] };
  // A stale `old` refuses the change, whatever `new` is.
  assertError(await update(team.id, { can_mention_group: { new: { direct_members: [dan.id], direct_subgroups: [] }, old: { direct_members: [cat.id], direct_subgroups: [] } } }),
    "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  assertError(await update(team.id, { can_mention_group: { new: cats.id, old: cats.id } }), "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
  log.clear();
  // The same members in another order: no change, no event.
  assertOk(await update(team.id, { can_mention_group: { new: { direct_members: [ben.id], direct_subgroups: [cats.id] }, old: { direct_subgroups: [cats.id], direct_members: [ben.id] } } }));
  assert.equal(log.events.filter((e) => e.event.type === 'user_group').length, 0);
  assertOk(await update(team.id, { can_mention_group: { new: { direct_members: [dan.id, ben.id], direct_subgroups: [] }, old: current } }));
  const next = { direct_members: [ben.id, dan.id], direct_subgroups: [] };
  const e = log.one('user_group', 'update');
  assert.deepEqual(e.event, { type: 'user_group', op: 'update', group_id: team.id, data: { can_mention_group: next } });
  assert.deepEqual((await byName('anon-team')).can_mention_group, next);
  assertOk(await send(dan, 'hi again @*anon-team*'));
  assertError(await send(cat, 'hi again @*anon-team*'), "You are not allowed to mention user group 'anon-team'.");
  // Back to a named group, by {new} without old and then by a bare id.
  const everyone = (await t.app.ctx.store.db.selectFrom('user_group').select('id').where('name', '=', 'role:everyone')
    .where('realm_id', '=', t.owner.row.realm_id).executeTakeFirstOrThrow()).id;
  assertOk(await update(team.id, { can_mention_group: { new: cats.id } }));
  assert.equal((await byName('anon-team')).can_mention_group, cats.id);
  assertOk(await update(team.id, { can_mention_group: everyone }));
  assert.equal((await byName('anon-team')).can_mention_group, everyone);
  assertOk(await send(dan, 'and again @*anon-team*'));
});
