import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { people, testApp } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { uploadOne } from '../helpers/multipart.js';
import { subscribe } from '../helpers/streams.js';
import { exportRealm } from '../../src/export/export-realm.js';
import { buildOrg } from './build-org.js';
import { NO_PROGRESS, type Progress } from '../../src/import/source.js';
import { allMessages, json, untar, type Row } from './untar.js';
import { archivedNameLower, realmFromZulip, toZulipRealm, streamFromZulip, subscriptionFromZulip, userFromZulip, userGroupFromZulip, type MapId } from '../../src/import/zulip-columns.js';
import { realmSettings, type RealmSettings } from '../../src/lib/realm-settings.js';
import { storedRealmUserDefaults, userSettings } from '../../src/lib/user-settings.js';

function tmpFile(): { file: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-export-test-'));
  return { file: path.join(dir, 'out.tar.gz'), done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const byId = (rows: Row[], id: number): Row => {
  const r = rows.find((x) => x.id === id);
  assert.ok(r, `row ${id} present`);
  return r;
};

test('an organization exports in Zulip\'s layout with every kind of row, files, and no secrets', async () => {
  const t = await testApp();
  const out = tmpFile();
  try {
    const o = await buildOrg(t);
    const phases: string[] = [];
    const progress: Progress = { phase: (label) => phases.push(label), tick() {}, done() {} };
    const result = await exportRealm(t.app.ctx, t.realm.id, out.file, progress);
    assert.deepEqual(phases, ['Organization', 'Files', 'Messages']);
    assert.equal(result.messages, 5);
    // The upload, and the emoji as served and as uploaded.
    assert.equal(result.files, 3);
    const { top, files } = await untar(out.file);
    assert.match(top, /^zulip-export-/);
    for (const name of ['realm.json', 'messages-000001.json', 'attachment.json', 'migration_status.json', 'uploads/records.json', 'avatars/records.json', 'emoji/records.json', 'realm_icons/records.json']) {
      assert.ok(files.has(name), name);
    }
    const serviceTokens = (await t.app.ctx.store.db.selectFrom('bot_service').select('token').execute()).map((r) => r.token);
    assert.equal(serviceTokens.length, 1);
    for (const [name, bytes] of files) {
      const text = bytes.toString('utf8');
      for (const token of serviceTokens) assert.equal(text.includes(token), false, `${name} holds a service token`);
      for (const u of [t.owner, o.alice, o.bob, o.carol, o.bot, o.hookBot]) assert.equal(text.includes(u.apiKey), false, `${name} holds an API key`);
      assert.equal(/"(api_key|password|password_hash)"/.test(text), false, `${name} names a secret column`);
    }

    const realm = json(files, 'realm.json');
    const [realmRow] = realm.zerver_realm!;
    assert.equal(realmRow!.mandatory_topics, true);
    assert.equal(realmRow!.waiting_period_threshold, 4);
    assert.equal(realmRow!.id, t.realm.id);

    const users = realm.zerver_userprofile!;
    assert.equal(byId(users, o.alice.id).full_name, 'Alice Smith');
    assert.equal(byId(users, o.bob.id).twenty_four_hour_time, true);
    assert.equal(byId(users, o.bob.id).emojiset, 'twitter');
    assert.equal(byId(users, o.alice.id).twenty_four_hour_time, false);
    assert.equal(byId(users, o.dave.id).is_active, false);
    assert.equal(byId(users, t.owner.id).role, 100);
    const bot = byId(users, o.bot.id);
    assert.deepEqual([bot.is_bot, bot.bot_type, bot.bot_owner], [true, 1, o.alice.id]);
    assert.ok(realm.zerver_userprofile_crossrealm!.length >= 1, 'the system bots, by email');
    assert.equal(users.some((u) => realm.zerver_userprofile_crossrealm!.some((c) => c.id === u.id)), false);

    const streams = realm.zerver_stream!;
    assert.equal(byId(streams, o.secret).invite_only, true);
    assert.equal(byId(streams, o.general).invite_only, false);
    assert.equal(byId(streams, o.old).deactivated, true);
    const recipients = realm.zerver_recipient!;
    const streamRecipient = (id: number) => recipients.find((r) => r.type === 2 && r.type_id === id)!.id;
    const subscribers = (recipient: unknown) => realm.zerver_subscription!.filter((s) => s.recipient === recipient).map((s) => s.user_profile).sort();
    assert.deepEqual(subscribers(streamRecipient(o.secret)), [o.alice.id, o.carol.id].sort());
    assert.equal(realm.zerver_huddle!.length, 2);
    const huddleOf = (ids: number[]) => realm.zerver_huddle!.find((h) => h.huddle_hash === [...ids].sort((a, b) => a - b).join(','))!;
    assert.deepEqual(subscribers(huddleOf([o.alice.id, o.bob.id, o.carol.id]).recipient), [o.alice.id, o.bob.id, o.carol.id].sort());
    const draftGroup = huddleOf([o.alice.id, o.bob.id, t.owner.id]);
    assert.deepEqual(subscribers(draftGroup.recipient), [o.alice.id, o.bob.id, t.owner.id].sort());
    assert.deepEqual(realm.zerver_draft!.map((d) => [d.user_profile, d.recipient, d.content]), [[o.alice.id, draftGroup.recipient, 'draft to a new group']]);
    const [scheduled] = realm.zerver_scheduledmessage!;
    assert.deepEqual([scheduled!.sender, scheduled!.recipient, scheduled!.subject, scheduled!.content], [o.alice.id, streamRecipient(o.general), 'later', 'in an hour']);
    assert.ok(realm.zerver_client!.some((c) => c.id === scheduled!.sending_client), 'its client is a zerver_client row');
    const [field] = realm.zerver_customprofilefield!;
    assert.deepEqual([field!.name, field!.field_type], ['Phone', 1]);
    assert.deepEqual(realm.zerver_customprofilefieldvalue!.map((v) => [v.user_profile, v.field, v.value]), [[o.carol.id, field!.id, '555-0100']]);
    assert.deepEqual(realm.zerver_realmfilter!.map((f) => [f.pattern, f.url_template]), [['#(?P<id>[0-9]+)', 'https://tracker.example/{id}']]);
    assert.deepEqual(realm.zerver_defaultstream!.map((d) => d.stream), [o.general]);
    assert.deepEqual(realm.zerver_userstatus!.map((u) => [u.user_profile, u.status_text]), [[o.carol.id, 'On leave']]);
    assert.deepEqual(realm.zerver_muteduser!.map((m) => [m.user_profile, m.muted_user]), [[o.carol.id, o.alice.id]]);
    // Everyone has their own conversation's recipient, as Zulip's importer expects.
    assert.equal(byId(users, o.alice.id).recipient, recipients.find((r) => r.type === 1 && r.type_id === o.alice.id)!.id);

    const emoji = realm.zerver_realmemoji!;
    assert.equal(emoji.length, 1);
    assert.equal(emoji[0]!.name, 'parley_logo');
    const reactions = realm.zerver_reaction!;
    assert.deepEqual(reactions.map((r) => [r.user_profile, r.message, r.emoji_name, r.reaction_type]).sort(), [
      [o.bob.id, o.edited, 'smile', 'unicode_emoji'], [o.carol.id, o.edited, 'parley_logo', 'realm_emoji'],
    ].sort());
    assert.equal(reactions.find((r) => r.emoji_name === 'parley_logo')!.emoji_code, String(emoji[0]!.id));
    const designers = realm.zerver_namedusergroup!.find((g) => g.name === 'designers')!;
    assert.equal(designers.is_system_group, false);
    assert.ok(realm.zerver_namedusergroup!.some((g) => g.name === 'role:members' && g.is_system_group === true));
    assert.deepEqual(realm.zerver_usergroupmembership!.filter((m) => m.user_group === designers.usergroup_ptr).map((m) => m.user_profile).sort(), [o.alice.id, o.bob.id].sort());
    assert.ok(realm.zerver_groupgroupmembership!.length > 0, 'system groups nest');
    assert.deepEqual(realm.zerver_alertword!.map((w) => [w.user_profile, w.word]), [[o.bob.id, 'pixel']]);
    // From level 214 sending follows a topic too (automatic follow): only the mute is this test's.
    assert.deepEqual(realm.zerver_usertopic!.filter((u) => u.visibility_policy === 1).map((u) => [u.user_profile, u.stream, u.topic_name, u.visibility_policy]), [[o.bob.id, o.general, 'plans', 1]]);
    assert.ok(realm.zerver_client!.length >= 1);
    assert.deepEqual(realm.zerver_service!.map((x) => [x.user_profile, x.base_url, x.interface, 'token' in x]), [[o.hookBot.id, 'https://hooks.example/x', 1, false]]);
    assert.deepEqual(realm.zerver_botstoragedata!.map((x) => [x.bot_profile, x.key, x.value]), [[o.hookBot.id, 'seen', '3']]);
    assert.equal(byId(users, o.hookBot.id).bot_type, 3);
    assert.deepEqual(realm.zerver_savedsnippet!.map((x) => [x.user_profile, x.title, x.content]), [[o.bob.id, 'Greeting', 'Hello there']]);
    assert.ok(realm.zerver_userpresence!.some((p) => p.user_profile === o.carol.id && typeof p.last_active_time === 'number'));
    assert.equal(realm.zerver_realmuserdefault!.length, 1);

    const { zerver_message: messages, zerver_usermessage: userMessages } = allMessages(files);
    assert.deepEqual(messages.map((m) => m.id), [...messages.map((m) => m.id as number)].sort((a, b) => a - b), 'ascending ids');
    const edited = byId(messages, o.edited);
    assert.equal(edited.content, 'hello again @**Bob Jones**');
    assert.equal(edited.subject, 'plans');
    assert.equal(typeof edited.date_sent, 'number');
    assert.ok(typeof edited.edit_history === 'string' && (JSON.parse(edited.edit_history) as Row[])[0]!.prev_content === 'hello @**Bob Jones**');
    const receivers = (id: number) => userMessages.filter((u) => u.message === id).map((u) => u.user_profile).sort();
    assert.deepEqual(receivers(o.secretMsg), [o.alice.id, o.carol.id].sort(), 'a private stream\'s message only for its subscribers');
    assert.deepEqual(receivers(o.dm), [o.alice.id, o.bob.id].sort());
    assert.deepEqual(receivers(o.groupDm), [o.alice.id, o.bob.id, o.carol.id].sort());
    const bobsEdited = userMessages.find((u) => u.message === o.edited && u.user_profile === o.bob.id)!;
    // Zulip's flag bits: read 1, starred 2, mentioned 8.
    assert.equal((bobsEdited.flags_mask as number) & 11, 11);
    assert.equal((userMessages.find((u) => u.message === o.groupDm && u.user_profile === o.alice.id)!.flags_mask as number) & 3, 0);

    const attachments = json(files, 'attachment.json').zerver_attachment!;
    assert.equal(attachments.length, 1);
    assert.equal(attachments[0]!.path_id, o.uploadPath);
    assert.deepEqual(attachments[0]!.messages, [o.secretMsg]);
    const uploads = json<Row[]>(files, 'uploads/records.json');
    assert.deepEqual(uploads.map((r) => [r.path, r.s3_path, r.user_profile_id, r.size]), [[o.uploadPath, o.uploadPath, o.alice.id, 13]]);
    assert.equal(files.get(`uploads/${o.uploadPath}`)?.toString(), 'private bytes');
    const emojiRecords = json<Row[]>(files, 'emoji/records.json');
    assert.deepEqual(emojiRecords.map((r) => [r.name, r.author, r.file_name]), [['parley_logo', o.alice.id, emoji[0]!.file_name], ['parley_logo', o.alice.id, emoji[0]!.file_name]]);
    assert.ok(emojiRecords.some((r) => String(r.path).endsWith('.original')));
    for (const r of emojiRecords) assert.ok(files.get(`emoji/${r.path as string}`)!.length > 0, 'the emoji image');
    assert.ok(files.has('analytics.json'));
    assert.deepEqual(json<Row[]>(files, 'avatars/records.json'), []);
    const status = json<Row>(files, 'migration_status.json');
    assert.equal(typeof status.zulip_version, 'string');

    // Smaller message files: the same messages, split in order.
    fs.rmSync(out.file);
    await exportRealm(t.app.ctx, t.realm.id, out.file, NO_PROGRESS, { messagesPerFile: 2 });
    const again = await untar(out.file);
    assert.deepEqual(['messages-000001.json', 'messages-000002.json', 'messages-000003.json', 'messages-000004.json'].map((n) => again.files.has(n)), [true, true, true, false]);
    assert.deepEqual(allMessages(again.files).zerver_message.map((m) => m.id), messages.map((m) => m.id));
    assert.equal(allMessages(again.files).zerver_usermessage.length, userMessages.length);
  } finally {
    out.done();
    await t.close();
  }
});

test('an export is one snapshot: what is written while it runs is wholly out of it', async () => {
  const t = await testApp();
  const out = tmpFile();
  try {
    const { alice, bob, carol } = await t.createUsers(people('alice', 'bob', 'carol'));
    await subscribe(t, alice, 'general', { principals: [alice.id, bob.id] });
    const before: number[] = [];
    for (let i = 0; i < 5; i++) before.push(await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 't', content: `m${i}` }));
    await uploadOne(t, alice, 'a.txt', 'aaa');

    // Once the export has read the organization (and holds its snapshot), its first file read
    // waits for writes of every kind to commit: none may show in what it reads after.
    const storage = t.app.ctx.storage;
    let written: Promise<void> | undefined;
    const writeMeanwhile = async (): Promise<void> => {
      await sendMessage(t, bob, { type: 'stream', to: 'general', topic: 't', content: 'during' });
      await sendMessage(t, alice, { type: 'private', to: JSON.stringify([bob.id, carol.id]), content: 'a new group' });
      assertOk(await t.api('POST', `/api/v1/messages/${before[0]}/reactions`, { as: bob, params: { emoji_name: 'smile' } }));
      assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as: alice, params: { subscriptions: [{ name: 'general' }], principals: [carol.id] } }));
      await uploadOne(t, bob, 'b.txt', 'bbb');
    };
    const wrapped = Object.create(storage) as typeof storage;
    wrapped.get = async (key: string) => {
      written ??= writeMeanwhile();
      await written;
      return storage.get(key);
    };
    const ctx = { ...t.app.ctx, storage: wrapped };
    const result = await exportRealm(ctx, t.realm.id, out.file, NO_PROGRESS);
    assert.ok(written, 'the writes ran during the export');
    await written;

    const { files } = await untar(out.file);
    const { zerver_message: messages, zerver_usermessage: userMessages } = allMessages(files);
    assert.deepEqual(messages.map((m) => m.id), before, 'exactly the messages before the export');
    assert.equal(result.messages, before.length);
    const ids = new Set(messages.map((m) => m.id));
    assert.ok(userMessages.every((u) => ids.has(u.message)), 'no usermessage without its message');
    for (const id of before) assert.equal(userMessages.filter((u) => u.message === id).length, 2, 'recipients as they were');
    const realm = json(files, 'realm.json');
    assert.deepEqual(realm.zerver_reaction, []);
    assert.equal(realm.zerver_huddle!.length, 0);
    assert.equal(json(files, 'attachment.json').zerver_attachment!.length, 1);
    // The writes did land.
    const now = await t.api('GET', '/api/v1/messages', { as: alice, params: { anchor: 'newest', num_before: 100, num_after: 0 } });
    assert.equal(assertOk(now).messages.length, before.length + 2);
  } finally {
    out.done();
    await t.close();
  }
});

test('a missing organization fails with one line and leaves no file', async () => {
  const t = await testApp();
  const out = tmpFile();
  try {
    await assert.rejects(exportRealm(t.app.ctx, 9999, out.file, NO_PROGRESS), /no organization with id 9999/);
    assert.deepEqual(fs.readdirSync(path.dirname(out.file)), []);
  } finally {
    out.done();
    await t.close();
  }
});

test('the exported rows read back through zulip-columns give the rows Parley has', async () => {
  const t = await testApp();
  const out = tmpFile();
  try {
    await buildOrg(t);
    assertOk(await t.api('PATCH', '/api/v1/realm/user_settings_defaults', { params: { enter_sends: true } }));
    await exportRealm(t.app.ctx, t.realm.id, out.file, NO_PROGRESS);
    const realm = json((await untar(out.file)).files, 'realm.json');
    const same: MapId = (_kind, id) => id;
    const db = t.app.ctx.store.db;

    const realmRow = (await db.selectFrom('realm').selectAll().where('id', '=', t.realm.id).executeTakeFirstOrThrow());
    const back = realmFromZulip(realm.zerver_realm![0]!, same, realm.zerver_realmuserdefault![0]);
    // Settings the source left unset export as their effective value and come back set to it:
    // the same organization, so exporting it again gives the same row.
    const systemGroups = new Map((await db.selectFrom('user_group').select(['id', 'name']).where('realm_id', '=', t.realm.id).where('is_system_group', '=', 1).execute()).map((g) => [g.name, g.id]));
    assert.deepEqual(toZulipRealm({ ...realmRow, settings: back.settings }, systemGroups), toZulipRealm(realmRow, systemGroups));
    const { user_settings_defaults: _d, ...own } = JSON.parse(realmRow.settings) as Record<string, unknown>;
    for (const [k, v] of Object.entries(own)) assert.deepEqual(realmSettings(back.settings)[k as keyof RealmSettings], v, k);
    assert.deepEqual(storedRealmUserDefaults(back.settings), storedRealmUserDefaults(realmRow.settings));
    assert.deepEqual([back.name, back.description, back.date_created], [realmRow.name, realmRow.description, realmRow.date_created]);

    const users = await db.selectFrom('users').selectAll().where('realm_id', '=', t.realm.id).where('is_system_bot', '=', 0).execute();
    assert.equal(realm.zerver_userprofile!.length, users.length);
    for (const row of realm.zerver_userprofile!) {
      const { settings, ...u } = userFromZulip(row, same);
      // The avatar key is made anew by the importer (avatars are stored again), never carried.
      // Soft deactivation is not carried either: an export is made with every row caught up.
      const { settings: dbSettings, id, realm_id: _r, api_key: _k, password_hash: _p, is_system_bot: _s, avatar_key: _a, long_term_idle: _i, ...dbUser } = users.find((x) => x.id === row.id)!;
      assert.deepEqual({ ...u, password_hash: undefined }, { ...dbUser, password_hash: undefined }, `user ${id}`);
      assert.deepEqual({ ...userSettings(settings) }, { ...userSettings(dbSettings) }, `settings of user ${id}`);
    }

    const streams = await db.selectFrom('stream').selectAll().where('realm_id', '=', t.realm.id).execute();
    for (const row of realm.zerver_stream!) {
      const s = streamFromZulip(row, same);
      const { id, realm_id: _r, recipient_id: _rc, email_token: _e, first_message_id: _f, rendered_description: _d, ...dbStream } = streams.find((x) => x.id === row.id)!;
      const nameLower = s.deactivated === 1 ? archivedNameLower(id, s.name) : s.name_lower;
      assert.deepEqual({ ...s, name_lower: nameLower, rendered_description: undefined }, { ...dbStream, rendered_description: undefined }, `stream ${id}`);
    }
    const subs = await db.selectFrom('subscription').selectAll().execute();
    for (const sub of subs) {
      const { id, user_id: _u, stream_id: _s, ...dbSub } = sub;
      assert.deepEqual(subscriptionFromZulip(realm.zerver_subscription!.find((x) => x.id === id)!), dbSub, `subscription ${id}`);
    }
    const groups = await db.selectFrom('user_group').selectAll().where('realm_id', '=', t.realm.id).execute();
    for (const row of realm.zerver_namedusergroup!) {
      const { id, realm_id: _r, ...dbGroup } = groups.find((x) => x.id === row.usergroup_ptr)!;
      assert.deepEqual(userGroupFromZulip(row, same), dbGroup, `group ${id}`);
    }
  } finally {
    out.done();
    await t.close();
  }
});
