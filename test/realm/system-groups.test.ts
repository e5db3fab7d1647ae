import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { testApp, people, createAcme, ACME_HOST, ENGINE, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { Role } from '../../src/lib/roles.js';
import { migrations } from '../../src/store/migrations/index.js';

// Zulip's role-based system groups: created with every organization (and by migration 040
// for existing ones), membership following roles with user_group events, shown from
// feature level 142 (the first level whose API names one) and hidden below it.
const NAMES = ['role:nobody', 'role:owners', 'role:administrators', 'role:moderators', 'role:fullmembers', 'role:members', 'role:everyone', 'role:internet'];
const DESCRIPTIONS = ['Nobody', 'Owners of this organization', 'Administrators of this organization, including owners',
  'Moderators of this organization, including administrators', 'Members of this organization, not including new accounts and guests',
  'Members of this organization, not including guests', 'Everyone in this organization, including guests', 'Everyone on the Internet'];

let t: TestApp;
let old: TestApp;
let log: EventLog;
let oldLog: EventLog;
let alice: TestUser, bob: TestUser, guest: TestUser, admin: TestUser, moderator: TestUser, bot: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  ({ alice, bob, guest } = await t.createUsers(people('alice', 'bob', 'guest')));
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
  moderator = await t.createUser({ name: 'Mo Moderator', role: Role.MODERATOR });
  bot = await t.createBot(alice, { fullName: 'Group Bot', shortName: 'groupbot' });
  ({ owner: acmeOwner } = await createAcme(t));
  old = await testApp({ featureLevel: 122 });
  oldLog = new EventLog(old);
});
after(async () => { await t.close(); await old.close(); });

const call = (app: TestApp, method: string, url: string, as: TestUser, params: Record<string, unknown> = {}) =>
  app.api(method, `/api/v1${url}`, { as, params, ...(as === acmeOwner ? { host: ACME_HOST } : {}) });
const groups = async (app: TestApp = t, as: TestUser = bob) => assertOk(await call(app, 'GET', '/user_groups', as)).user_groups as Array<Record<string, any>>;
const system = async (app: TestApp = t, as: TestUser = bob) => new Map((await groups(app, as)).filter((g) => g.is_system_group).map((g) => [g.name as string, g]));

test('every organization has the eight system groups, nested as Zulip nests them, members by role', async () => {
  const all = await groups();
  const sys = all.filter((g) => g.is_system_group);
  assert.deepEqual(sys.map((g) => g.name), NAMES);
  assert.deepEqual(sys.map((g) => g.description), DESCRIPTIONS);
  const id = (name: string) => sys.find((g) => g.name === name)!.id as number;
  // Ids ascend in creation order; each role group is a direct subgroup of the next.
  assert.deepEqual(sys.map((g) => g.id), sorted(sys.map((g) => g.id)));
  assert.deepEqual(sys.map((g) => g.direct_subgroup_ids), [[], [], [id('role:owners')], [id('role:administrators')], [id('role:moderators')],
    [id('role:fullmembers')], [id('role:members')], [id('role:everyone')]]);
  const members = Object.fromEntries(sys.map((g) => [g.name, g.members]));
  assert.deepEqual(members, {
    'role:nobody': [], 'role:owners': [t.owner.id], 'role:administrators': [admin.id], 'role:moderators': [moderator.id],
    'role:fullmembers': sorted([alice.id, bob.id, bot.id]), 'role:members': sorted([alice.id, bob.id, bot.id]), 'role:everyone': [guest.id], 'role:internet': [],
  });
  // System groups can be mentioned by nobody (Zulip's default_for_system_groups).
  for (const g of sys) assert.equal(g.can_mention_group, id('role:nobody'));
  // Recursive membership: everyone's members include the members of every role group below.
  assert.deepEqual(assertOk(await call(t, 'GET', `/user_groups/${id('role:everyone')}/members`, bob)).members,
    sorted([t.owner.id, admin.id, moderator.id, alice.id, bob.id, bot.id, guest.id]));
  assert.deepEqual(assertOk(await call(t, 'GET', `/user_groups/${id('role:moderators')}/members`, bob)).members, sorted([t.owner.id, admin.id, moderator.id]));
  // Register shows the same; another organization has its own.
  const reg = assertOk(await call(t, 'POST', '/register', guest, { fetch_event_types: ['realm_user_groups'] }));
  assert.deepEqual(reg.realm_user_groups, all);
  const acme = await system(t, acmeOwner);
  assert.deepEqual([...acme.keys()], NAMES);
  assert.deepEqual(acme.get('role:owners')!.members, [acmeOwner.id]);
  assert.ok([...acme.values()].every((g) => !sys.some((s) => s.id === g.id)));
});

test('a new user joins the role\'s system groups, with add_members events to everyone', async () => {
  const sys = await system();
  log.clear();
  const carol = await t.createUser({ name: 'Carol New' });
  const events = log.find('user_group', 'add_members');
  assert.deepEqual(events.map((e) => e.event), [
    { type: 'user_group', op: 'add_members', group_id: sys.get('role:members')!.id, user_ids: [carol.id] },
    { type: 'user_group', op: 'add_members', group_id: sys.get('role:fullmembers')!.id, user_ids: [carol.id] },
  ]);
  for (const e of events) assert.ok(e.userIds.includes(bob.id) && e.userIds.includes(guest.id) && !e.userIds.includes(acmeOwner.id));
  const after = await system();
  assert.ok(after.get('role:members')!.members.includes(carol.id));
  log.clear();
  const visitor = await t.createUser({ name: 'Vic Visitor', role: Role.GUEST });
  assert.deepEqual(log.find('user_group', 'add_members').map((e) => e.event.group_id), [sys.get('role:everyone')!.id]);
  assert.ok((await system()).get('role:everyone')!.members.includes(visitor.id));
});

test('a role change moves the user between system groups: remove_members, then add_members', async () => {
  const sys = await system();
  const dave = await t.createUser({ name: 'Dave Member' });
  log.clear();
  assertOk(await call(t, 'PATCH', `/users/${dave.id}`, t.owner, { role: Role.MODERATOR }));
  assert.deepEqual(log.find('user_group').map((e) => [e.event.op, e.event.group_id, e.event.user_ids]), [
    ['remove_members', sys.get('role:members')!.id, [dave.id]],
    ['remove_members', sys.get('role:fullmembers')!.id, [dave.id]],
    ['add_members', sys.get('role:moderators')!.id, [dave.id]],
  ]);
  let now = await system();
  assert.ok(now.get('role:moderators')!.members.includes(dave.id));
  assert.ok(!now.get('role:members')!.members.includes(dave.id) && !now.get('role:fullmembers')!.members.includes(dave.id));
  log.clear();
  assertOk(await call(t, 'PATCH', `/users/${dave.id}`, t.owner, { role: Role.GUEST }));
  assert.deepEqual(log.find('user_group').map((e) => [e.event.op, e.event.group_id]), [
    ['remove_members', sys.get('role:moderators')!.id], ['add_members', sys.get('role:everyone')!.id]]);
  log.clear();
  assertOk(await call(t, 'PATCH', `/users/${dave.id}`, t.owner, { role: Role.MEMBER }));
  assert.deepEqual(log.find('user_group').map((e) => [e.event.op, e.event.group_id]), [
    ['remove_members', sys.get('role:everyone')!.id], ['add_members', sys.get('role:members')!.id], ['add_members', sys.get('role:fullmembers')!.id]]);
  now = await system();
  assert.ok(now.get('role:members')!.members.includes(dave.id) && !now.get('role:everyone')!.members.includes(dave.id));
});

test('role:fullmembers follows the waiting period: a new period at once, its end by the periodic promotion', async () => {
  const sys = await system();
  const full = sys.get('role:fullmembers')!.id;
  const members = sys.get('role:members')!.members as number[];
  const fullNow = async () => sorted((await system()).get('role:fullmembers')!.members as number[]);
  assert.deepEqual(await fullNow(), sorted(members), 'with no waiting period every member is a full member');
  log.clear();
  // Everyone here joined moments ago: ten days' wait takes every member out, in one event, after the realm event.
  assertOk(await call(t, 'PATCH', '/realm', t.owner, { waiting_period_threshold: 10 }));
  const seen = log.events.filter((e) => e.event.type === 'realm' || e.event.type === 'user_group').map((e) => e.event);
  assert.deepEqual(seen.map((e) => e.type), ['realm', 'user_group']);
  assert.deepEqual(seen[1], { type: 'user_group', op: 'remove_members', group_id: full, user_ids: sorted(members) });
  assert.deepEqual(await fullNow(), []);
  try {
    const promote = t.app.ctx.fullMembers!;
    const now = Math.floor(Date.now() / 1000);
    log.clear();
    assert.equal(await promote.promoteDue(now + 9 * 86400), 0, 'nobody is due after nine days');
    assert.deepEqual(log.find('user_group'), []);
    assert.equal(await promote.promoteDue(now + 11 * 86400), members.length);
    const added = log.find('user_group', 'add_members');
    assert.deepEqual(added.map((e) => e.event), [{ type: 'user_group', op: 'add_members', group_id: full, user_ids: sorted(members) }]);
    assert.ok(added[0]!.userIds.includes(guest.id) && !added[0]!.userIds.includes(acmeOwner.id), 'to the organization, as any group event');
    assert.deepEqual(await fullNow(), sorted(members));
    assert.equal(await promote.promoteDue(now + 12 * 86400), 0, 'promoted once');
  } finally {
    assertOk(await call(t, 'PATCH', '/realm', t.owner, { waiting_period_threshold: 0 }));
  }
  assert.deepEqual(await fullNow(), sorted(members));
});

test('system groups are not edited, deleted or mentioned through the API', async () => {
  const sys = await system();
  const members = sys.get('role:members')!.id;
  assertError(await call(t, 'PATCH', `/user_groups/${members}`, admin, { name: 'x', description: 'y' }), 'Insufficient permission');
  assertError(await call(t, 'DELETE', `/user_groups/${members}`, admin), 'Insufficient permission');
  assertError(await call(t, 'POST', `/user_groups/${members}/members`, admin, { add: [guest.id] }), 'Insufficient permission');
  // A group of that name cannot be made either (names are unique in the organization).
  assertError(await call(t, 'POST', '/user_groups/create', admin, { name: 'role:members', description: '', members: [] }), "User group 'role:members' already exists.");
  // As Zulip's MentionData: @*role:members* is not a group mention.
  const sent = assertOk(await call(t, 'POST', '/messages', alice, { type: 'private', to: JSON.stringify([bob.id]), content: 'hi @*role:members*' }));
  const msg = assertOk(await call(t, 'GET', `/messages/${sent.id}`, bob));
  assert.ok(!msg.message.content.includes('user-group-mention'), msg.message.content);
  assert.ok(!msg.message.flags.includes('mentioned'));
});

test('at feature level 122 system groups exist but are not shown, and their events are not sent', async () => {
  const [oBob] = Object.values(await old.createUsers(people('bob'))) as TestUser[];
  const shown = await groups(old, oBob!);
  assert.deepEqual(shown.filter((g) => g.is_system_group), []);
  const reg = assertOk(await call(old, 'POST', '/register', oBob!, { fetch_event_types: ['realm_user_groups'] }));
  assert.deepEqual(reg.realm_user_groups, shown);
  // No can_mention_group field below its level.
  assertOk(await call(old, 'POST', '/user_groups/create', old.owner, { name: 'old-team', description: '', members: [oBob!.id] }));
  const team = (await groups(old, oBob!)).find((g) => g.name === 'old-team')!;
  assert.deepEqual(Object.keys(team).sort(), ['description', 'direct_subgroup_ids', 'id', 'is_system_group', 'members', 'name']);
  oldLog.clear();
  const newcomer = await old.createUser({ name: 'Newcomer' });
  assertOk(await call(old, 'PATCH', `/users/${newcomer.id}`, old.owner, { role: Role.ADMINISTRATOR }));
  assert.deepEqual(oldLog.find('user_group'), []);
  // They exist all the same: the membership is kept for the levels that show them.
  const rows = await old.app.ctx.store.db.selectFrom('user_group').select(['name']).where('is_system_group', '=', 1).execute();
  assert.equal(rows.length, 8 * (await old.app.ctx.store.db.selectFrom('realm').select('id').execute()).length);
});

test('migration 040 gives existing organizations their system groups and memberships', { skip: ENGINE !== 'sqlite' && 'one engine suffices: the migration has no dialect branch' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-migrate-'));
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(path.join(dir, 'old.sqlite')) }) });
  try {
    const split = migrations.findIndex((m) => m.name === '040-system-groups');
    assert.ok(split > 0);
    for (const m of migrations.slice(0, split)) await m.up(db, 'sqlite');
    const realm = (await db.insertInto('realm').values({ string_id: 'old', name: 'Old', description: '', settings: JSON.stringify({ waiting_period_threshold: 10 }), deactivated: 0, date_created: 1 })
      .returning('id').executeTakeFirstOrThrow()).id as number;
    const now = Math.floor(Date.now() / 1000);
    const user = async (email: string, role: number, joined: number, extra: Record<string, unknown> = {}) => (await db.insertInto('users').values({
      realm_id: realm, email, email_lower: email, delivery_email: email, full_name: email, password_hash: null, api_key: email, role, is_active: 1, is_bot: 0,
      bot_type: null, bot_owner_id: null, is_billing_admin: 0, timezone: '', date_joined: joined, avatar_source: 'G', avatar_version: 1, settings: '{}', ...extra,
    }).returning('id').executeTakeFirstOrThrow()).id as number;
    const owner = await user('o@x', Role.OWNER, 1);
    const veteran = await user('v@x', Role.MEMBER, 1);
    const fresh = await user('f@x', Role.MEMBER, now);
    const gone = await user('g@x', Role.GUEST, 1, { is_active: 0 });
    const sysBot = await user('b@x', Role.MEMBER, 1, { is_system_bot: 1, is_bot: 1 });
    const team = (await db.insertInto('user_group').values({ realm_id: realm, name: 'team', description: '' }).returning('id').executeTakeFirstOrThrow()).id as number;
    for (const m of migrations.slice(split)) await m.up(db, 'sqlite');
    const rows = await db.selectFrom('user_group').selectAll().where('realm_id', '=', realm).orderBy('id').execute();
    assert.deepEqual(rows.map((g) => g.name), ['team', ...NAMES]);
    const byName = new Map(rows.map((g) => [g.name as string, g]));
    assert.equal(byName.get('team')!.can_mention_group_id, byName.get('role:everyone')!.id);
    assert.equal(byName.get('role:owners')!.can_mention_group_id, byName.get('role:nobody')!.id);
    const memberships = await db.selectFrom('user_group_member').selectAll().execute();
    const of = (name: string) => sorted(memberships.filter((m) => m.group_id === byName.get(name)!.id).map((m) => m.user_id));
    assert.deepEqual(of('role:owners'), [owner]);
    assert.deepEqual(of('role:members'), sorted([veteran, fresh]));
    // Past the waiting period only; a deactivated user keeps a membership (Zulip before level 303); no system bot.
    assert.deepEqual(of('role:fullmembers'), [veteran]);
    assert.deepEqual(of('role:everyone'), [gone]);
    assert.ok(!memberships.some((m) => m.user_id === sysBot));
    const edges = await db.selectFrom('user_group_subgroup').selectAll().execute();
    assert.equal(edges.length, 6);
    assert.ok(edges.some((e) => e.supergroup_id === byName.get('role:internet')!.id && e.subgroup_id === byName.get('role:everyone')!.id));
    assert.equal(team > 0, true);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('at 277, register state plus these events equals a fresh register (system groups, can_remove_subscribers_group)', async () => {
  const { applyEvent } = await import('../../src/events/apply.js');
  const { validateEvent } = await import('../../src/events/schemas.js');
  const keys = ['realm_user_groups', 'streams', 'subscriptions', 'never_subscribed', 'realm_users'];
  const params = { include_subscribers: true, client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, user_settings_object: true } };
  const reg = assertOk(await call(t, 'POST', '/register', bob, params));
  const state = structuredClone(reg);
  const sys = await system();
  const frank = await t.createUser({ name: 'Frank Fresh' });
  assertOk(await call(t, 'PATCH', `/users/${frank.id}`, t.owner, { role: Role.MODERATOR }));
  assertOk(await call(t, 'POST', '/users/me/subscriptions', bob, { subscriptions: JSON.stringify([{ name: 'guarded-277' }]), can_remove_subscribers_group: sys.get('role:members')!.id }));
  const sid = assertOk(await call(t, 'GET', '/get_stream_id', bob, { stream: 'guarded-277' })).stream_id;
  assertOk(await call(t, 'PATCH', `/streams/${sid}`, t.owner, { can_remove_subscribers_group: sys.get('role:everyone')!.id }));
  const polled = assertOk(await t.api('GET', '/api/v1/events', { as: bob, params: { queue_id: reg.queue_id, last_event_id: -1, dont_block: true } }));
  const types = polled.events.map((e: any) => `${e.type}:${e.op ?? ''}`);
  for (const want of ['user_group:add_members', 'user_group:remove_members', 'stream:update', 'subscription:add']) assert.ok(types.includes(want), want);
  for (const e of polled.events) {
    assert.deepEqual(validateEvent(e), [], JSON.stringify(e));
    applyEvent(state, e, bob.id);
  }
  const fresh = assertOk(await call(t, 'POST', '/register', bob, params));
  const pick = (s: any) => Object.fromEntries(keys.map((k) => [k, k === 'realm_users' ? s[k] : structuredClone(s[k])?.map?.((x: any) => { delete x.stream_weekly_traffic; return x; })]));
  assert.deepEqual(pick(state), pick(fresh));
});
