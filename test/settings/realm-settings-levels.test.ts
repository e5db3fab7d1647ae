import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';

/**
 * Organization settings of later levels: want_advertise_in_communities_directory (129) and
 * message_content_edit_limit_seconds' null for no limit with PATCH's "unlimited" (138).
 */
let t: TestApp;
let spec: TestApp;
let member: TestUser;
before(async () => {
  t = await testApp({ featureLevel: 277 });
  spec = await testApp({ featureLevel: 122 });
  member = await t.createUser({ name: 'Mona Member' });
});
after(async () => { await t.close(); await spec.close(); });

const realmState = async (app: TestApp) => assertOk(await app.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm'] } }));
const patch = (app: TestApp, params: Record<string, unknown>, as?: TestUser) => app.api('PATCH', '/api/v1/realm', { as: as ?? app.owner, params });

test('129: want_advertise_in_communities_directory, false, in register from its level; PATCH /realm at any level, with its event', async () => {
  assert.equal((await realmState(t)).realm_want_advertise_in_communities_directory, false);
  assert.equal('realm_want_advertise_in_communities_directory' in (await realmState(spec)), false);
  const log = new EventLog(t);
  assert.deepEqual(assertOk(await patch(t, { want_advertise_in_communities_directory: true })),
    { result: 'success', msg: '', want_advertise_in_communities_directory: true });
  assert.deepEqual(log.one('realm', 'update').event, { type: 'realm', op: 'update', property: 'want_advertise_in_communities_directory', value: true });
  assert.ok(log.one('realm', 'update').userIds.includes(member.id));
  assert.equal((await realmState(t)).realm_want_advertise_in_communities_directory, true);
  assertError(await patch(t, { want_advertise_in_communities_directory: false }, member), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertOk(await patch(spec, { want_advertise_in_communities_directory: true }));
});

test('138: no content edit limit is null from level 138 (0 before); PATCH takes "unlimited" and, as before, 0', async () => {
  for (const [app, none] of [[t, null], [spec, 0]] as const) {
    assert.equal((await realmState(app)).realm_message_content_edit_limit_seconds, 600);
    for (const value of ['unlimited', '"unlimited"', 0]) {
      assertOk(await patch(app, { message_content_edit_limit_seconds: 900 }));
      const log = new EventLog(app);
      const body = assertOk(await patch(app, { message_content_edit_limit_seconds: value }));
      assert.equal(body.message_content_edit_limit_seconds, none);
      assert.equal((await realmState(app)).realm_message_content_edit_limit_seconds, none);
      assert.equal((log.one('realm', 'update').event as any).value, none);
    }
    const log = new EventLog(app);
    assert.equal(assertOk(await patch(app, { message_content_edit_limit_seconds: 300 })).message_content_edit_limit_seconds, 300);
    assert.equal((log.one('realm', 'update').event as any).value, 300);
    assertOk(await patch(app, { message_content_edit_limit_seconds: 'unlimited' }));
    assert.equal((log.find('realm', 'update')[1]!.event as any).value, none);
    assertError(await patch(app, { message_content_edit_limit_seconds: -5 }), "Bad value for 'message_content_edit_limit_seconds': -5");
    assertError(await patch(app, { message_content_edit_limit_seconds: 'forever' }), "Bad value for 'message_content_edit_limit_seconds': forever");
    assertError(await patch(app, { message_content_edit_limit_seconds: '[1]' }), 'message_content_edit_limit_seconds is not a string or integer');
    assertOk(await patch(app, { message_content_edit_limit_seconds: 600 }));
  }
});

test('138: without a limit old messages stay editable; with one they do not', async () => {
  await createStreams(t, { edits: [t.owner] });
  const id = await sendMessage(t, t.owner, { type: 'stream', to: 'edits', topic: 'old', content: 'first' });
  await t.app.ctx.store.db.updateTable('message').set({ date_sent: Math.floor(Date.now() / 1000) - 3600 }).where('id', '=', id).execute();
  assertError(await t.api('PATCH', `/api/v1/messages/${id}`, { params: { content: 'late' } }), 'The time limit for editing this message has passed');
  assertOk(await patch(t, { message_content_edit_limit_seconds: 'unlimited' }));
  assertOk(await t.api('PATCH', `/api/v1/messages/${id}`, { params: { content: 'late but fine' } }));
  assertOk(await patch(t, { message_content_edit_limit_seconds: 600 }));
});
