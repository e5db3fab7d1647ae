/**
 * Soft-deactivated people through an import: a Zulip export's keep their mark (moved to what
 * that message became) and get their missing rows unread, as on the server they came from;
 * a Slack workspace's lurkers (Zulip's long-term idle rule) come in without rows for ordinary
 * channel messages and get them read, by the daily catch-up or when they come back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testApp, HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { runImport } from '../../src/import/run.js';
import { runSoftDeactivation } from '../../src/actions/soft-deactivation.js';
import { users } from '../../src/store/repos/users.js';
import { realms } from '../../src/store/repos/realms.js';
import { fakeSlack, SLACK_FILES, SLACK_TOKEN, zipFolder } from '../helpers/fake-slack.js';
import { zulipExport } from './zulip-export-fixture.js';

const SLACK_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/slack/workspace');

async function person(t: TestApp, stringId: string, email: string): Promise<TestUser> {
  const realm = (await realms.findByStringId(t.app.ctx.store.db, stringId))!;
  return asTestUser((await users.findByDeliveryEmail(t.app.ctx.store.db, realm.id, email))!);
}

const rowsOf = async (t: TestApp, userId: number) => (await t.app.ctx.store.db.selectFrom('user_message').select(['message_id', 'flags'])
  .where('user_id', '=', userId).orderBy('message_id').execute()).map((r) => [r.message_id, r.flags]);

/** Whether idle, and the mark (migration 077: its own table; none once caught up and back). */
const idleOf = async (t: TestApp, userId: number) => {
  const r = await t.app.ctx.store.db.selectFrom('users').leftJoin('idle_mark', 'idle_mark.user_id', 'users.id')
    .select(['users.long_term_idle', 'idle_mark.last_active_message_id', 'idle_mark.read_through']).where('users.id', '=', userId).executeTakeFirstOrThrow();
  return { long_term_idle: r.long_term_idle, last_active_message_id: r.last_active_message_id, idle_read_through: r.read_through };
};

test('a Zulip export\'s idle person keeps their mark, and the rows they lacked come unread when they come back', async () => {
  const t = await testApp();
  try {
    // Hamlet went idle after message 1005: the export has none of his rows for 1006-1008 in Denmark.
    const fixture = await zulipExport((f) => {
      Object.assign(f.realm.zerver_userprofile!.find((u) => u.id === 13)!, { long_term_idle: true, last_active_message_id: 1005 });
      // A bot marked idle stays active: Parley never soft-deactivates bots.
      Object.assign(f.realm.zerver_userprofile!.find((u) => u.id === 15)!, { long_term_idle: true, last_active_message_id: 1001 });
    });
    const result = await runImport(t.app.ctx, 'zulip', fixture.dir, { stringId: 'imported' });
    assert.equal(result.idle, 1);
    const hamlet = await person(t, 'imported', 'hamlet@zulip.example');
    const bot = await person(t, 'imported', 'helper-bot@zulip.example');
    const iago = await person(t, 'imported', 'iago@zulip.example');
    const api = (as: TestUser, params: Record<string, unknown>) => t.api('GET', '/api/v1/messages', { as, host: `imported.${HOST}`, params });
    const denmark = (await api(iago, { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([['stream', 'Denmark']]) })).body.messages as Array<Record<string, any>>;
    const ids = denmark.map((m) => m.id as number);
    assert.equal(ids.length, 5, '1001, 1002, 1006, 1007, 1008');
    // What 1005 (the group message) became: the newest import before 1006.
    const mark = ids[2]! - 1;
    assert.deepEqual(await idleOf(t, hamlet.id), { long_term_idle: 1, last_active_message_id: mark, idle_read_through: null });
    assert.equal((await idleOf(t, bot.id)).long_term_idle, 0);
    const before = await rowsOf(t, hamlet.id);
    assert.ok(before.every(([m]) => m! <= mark), 'no row after the mark yet');

    // His first request catches him up: his rows for 1006-1008 are made, unread.
    const seen = (await api(hamlet, { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([['stream', 'Denmark']]) })).body.messages as Array<Record<string, any>>;
    assert.deepEqual(seen.map((m) => m.flags), [['mentioned'], ['read'], [], [], []]);
    assert.equal((await idleOf(t, hamlet.id)).long_term_idle, 0);
    assert.deepEqual((await rowsOf(t, hamlet.id)).slice(0, before.length), before, 'the rows he had are as the export gave them');
  } finally {
    await t.close();
  }
});

test('a Slack import\'s lurkers come in idle without channel rows but their mentions; caught up, their history is read', async () => {
  const slack = await fakeSlack(SLACK_FILES);
  const t = await testApp();
  try {
    // The fixture's messages are from 2020 and nobody sent more than 10: everyone is idle now.
    const result = await runImport(t.app.ctx, 'slack', await zipFolder(SLACK_DIR), { stringId: 'slacky', token: SLACK_TOKEN, fetch: slack.fetch });
    assert.equal(result.idle, 6, 'every human: the bots are never idle');
    const carol = await person(t, 'slacky', 'carol@example.com');
    // Erin has no address in users.json: she gets one made up in the organization's domain.
    const erinRow = await t.app.ctx.store.db.selectFrom('users').innerJoin('realm', 'realm.id', 'users.realm_id').selectAll('users')
      .where('realm.string_id', '=', 'slacky').where('users.full_name', '=', 'Erin Ultra').executeTakeFirstOrThrow();
    const erin = asTestUser(erinRow);
    const alice = await person(t, 'slacky', 'alice@example.com');
    const realm = (await realms.findByStringId(t.app.ctx.store.db, 'slacky'))!;
    const last = Number((await t.app.ctx.store.db.selectFrom('message').select((eb) => eb.fn.max('id').as('id')).where('realm_id', '=', realm.id).executeTakeFirstOrThrow()).id);
    const first = Number((await t.app.ctx.store.db.selectFrom('message').select((eb) => eb.fn.min('id').as('id')).where('realm_id', '=', realm.id).executeTakeFirstOrThrow()).id);
    for (const u of [carol, erin, alice]) {
      assert.deepEqual(await idleOf(t, u.id), { long_term_idle: 1, last_active_message_id: first - 1, idle_read_through: last });
    }
    // Erin was mentioned in #general: that row is there, flagged; none of Carol's channel messages has one.
    const erinRows = await rowsOf(t, erin.id);
    assert.ok(erinRows.some(([, flags]) => (flags! & 8) !== 0));
    const general = (await t.app.ctx.store.db.selectFrom('message').innerJoin('stream', 'stream.id', 'message.stream_id')
      .select('message.id').where('stream.name', '=', 'general').where('stream.realm_id', '=', realm.id).execute()).map((r) => r.id);
    assert.ok(general.length > 0);
    assert.ok((await rowsOf(t, carol.id)).every(([m]) => !general.includes(m!)));

    // The daily job catches Carol up without her visit: her rows are read.
    await runSoftDeactivation(t.app.ctx, { realmId: realm.id, days: 0 });
    const carolRows = new Map((await rowsOf(t, carol.id)).map(([m, f]) => [m!, f!]));
    assert.ok(general.every((m) => carolRows.get(m) !== undefined && (carolRows.get(m)! & 1) === 1));
    assert.equal((await idleOf(t, carol.id)).idle_read_through, null);

    // Erin comes back: her history is read but for what the export left unread, and she has no unread message.
    const reg = await t.api('POST', '/api/v1/register', { as: erin, host: `slacky.${HOST}`, params: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) } });
    assert.equal(reg.status, 200);
    assert.equal(reg.body.unread_msgs.count, 0);
    assert.equal((await idleOf(t, erin.id)).long_term_idle, 0);
    const seen = (await t.api('GET', '/api/v1/messages', { as: erin, host: `slacky.${HOST}`, params: { anchor: 'oldest', num_before: 0, num_after: 100, narrow: JSON.stringify([['stream', 'general']]) } })).body.messages as Array<Record<string, any>>;
    assert.equal(seen.length, general.length);
    assert.ok(seen.every((m) => (m.flags as string[]).includes('read')));
    assert.ok(seen.some((m) => (m.flags as string[]).includes('mentioned')));
  } finally {
    await t.close();
    await slack.close();
  }
});
