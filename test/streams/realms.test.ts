import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, createAcme, ACME_HOST, FEATURE_LEVEL, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { subscribe } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';

/** An unknown principal: 400 "No such user" from level 208, 403 UNAUTHORIZED_PRINCIPAL before. */
function assertUnknownPrincipal(r: ApiResult, principal: string | number): void {
  if (FEATURE_LEVEL >= 208) assertError(r, 'No such user');
  else assertError(r, `User not authorized to execute queries on behalf of '${principal}'`, 'UNAUTHORIZED_PRINCIPAL', 403, { principal });
}

/** Streams never cross organizations: ids, names, principals and events stay inside one. */
let t: TestApp;
let member: TestUser, boss: TestUser;
const acme = ACME_HOST;
let log: EventLog;
before(async () => {
  t = await testApp();
  member = await t.createUser();
  boss = (await createAcme(t)).owner;
  log = new EventLog(t);
});
after(async () => { await t.close(); });

test('another organization sees none of our streams and may not use our users', async () => {
  const ours = await subscribe(t, member, 'homegrown');
  const as = { as: boss, host: acme };
  assertError(await t.api('GET', `/api/v1/streams/${ours}`, as), 'Invalid stream id');
  assertError(await t.api('GET', '/api/v1/get_stream_id', { ...as, query: { stream: 'homegrown' } }), "Invalid stream name 'homegrown'");
  assertError(await t.api('PATCH', `/api/v1/streams/${ours}`, { ...as, params: { description: 'mine now' } }), 'Invalid stream id');
  assertError(await t.api('DELETE', `/api/v1/streams/${ours}`, as), 'Invalid stream id');
  assert.ok(!assertOk(await t.api('GET', '/api/v1/streams', { ...as, query: { include_all_active: true } })).streams.some((s: any) => s.stream_id === ours));
  assertUnknownPrincipal(await t.api('POST', '/api/v1/users/me/subscriptions', { ...as, params: { subscriptions: [{ name: 'x' }], principals: [member.id] } }), member.id);
  // The same name is free in the other organization, and its events stay there.
  log.clear();
  const theirs = await (async () => {
    assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { ...as, params: { subscriptions: [{ name: 'homegrown' }] } }));
    return assertOk(await t.api('GET', '/api/v1/get_stream_id', { ...as, query: { stream: 'homegrown' } })).stream_id;
  })();
  assert.notEqual(theirs, ours);
  for (const e of log.events) assert.ok(!e.userIds.includes(member.id) && !e.userIds.includes(t.owner.id), JSON.stringify(e));
  assert.equal(assertOk(await t.api('GET', '/api/v1/get_stream_id', { as: member, query: { stream: 'homegrown' } })).stream_id, ours);
});
