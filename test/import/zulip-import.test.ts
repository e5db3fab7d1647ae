/**
 * `parley import zulip`: a Zulip export becomes an organization that serves, through the API,
 * what the export holds, with the export's HTML and ids never trusted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, HOST, asTestUser, type TestApp, type TestUser } from '../helpers/app.js';
import { runImport } from '../../src/import/run.js';
import { users } from '../../src/store/repos/users.js';
import { realms } from '../../src/store/repos/realms.js';
import { zulipExport, SOURCE_REALM } from './zulip-export-fixture.js';

const ORG_HOST = `imported.${HOST}`;

async function person(t: TestApp, email: string): Promise<TestUser> {
  const realm = (await realms.findByStringId(t.app.ctx.store.db, 'imported'))!;
  return asTestUser((await users.findByDeliveryEmail(t.app.ctx.store.db, realm.id, email))!);
}

test('a Zulip export becomes an organization with its people, streams, messages and settings', async () => {
  const t = await testApp();
  try {
    const fixture = await zulipExport();
    const result = await runImport(t.app.ctx, 'zulip', fixture.dir, { stringId: 'imported' });
    assert.deepEqual({ users: result.users, streams: result.streams, messages: result.messages }, { users: 8, streams: 3, messages: 8 });
    const iago = await person(t, 'iago@zulip.example');
    const cordelia = await person(t, 'cordelia@zulip.example');
    const hamlet = await person(t, 'hamlet@zulip.example');
    const api = (method: string, url: string, as: TestUser, params?: Record<string, unknown>) => t.api(method, url, { as, host: ORG_HOST, ...(params ? { params } : {}) });

    // People: roles, bots, deactivated and mirror-dummy accounts, time zones (an invalid one dropped), no password.
    const members = (await api('GET', '/api/v1/users', iago)).body.members as Array<Record<string, any>>;
    const byEmail = new Map(members.map((m) => [m.delivery_email ?? m.email, m]));
    assert.equal(byEmail.get('iago@zulip.example')!.role, 100);
    assert.equal(byEmail.get('hamlet@zulip.example')!.role, 200);
    assert.equal(byEmail.get('hamlet@zulip.example')!.timezone, '');
    assert.equal(byEmail.get('cordelia@zulip.example')!.timezone, 'Europe/Paris');
    assert.equal(byEmail.get('othello@zulip.example')!.is_active, false);
    assert.equal(byEmail.get('othello@zulip.example')!.role, 600);
    assert.equal(byEmail.get('irc-user@irc.example')!.is_active, false);
    // An uploaded avatar, made again here and served.
    const avatar = String(byEmail.get('cordelia@zulip.example')!.avatar_url);
    assert.match(avatar, /^\/user_avatars\//);
    const picture = await t.api('GET', avatar.split('?')[0]!, { host: ORG_HOST });
    assert.equal(picture.status, 200);
    const bot = byEmail.get('helper-bot@zulip.example')!;
    assert.equal(bot.is_bot, true);
    assert.equal(bot.bot_owner_id, iago.id);
    assert.equal(iago.row.password_hash, null);
    const login = await t.api('POST', '/api/v1/fetch_api_key', { host: ORG_HOST, params: { username: 'iago@zulip.example', password: 'anything' } });
    assert.equal(login.status, 401);

    // Personal settings and the organization's.
    const settings = (await api('POST', '/api/v1/register', cordelia, { fetch_event_types: JSON.stringify(['user_settings', 'realm']) })).body;
    assert.equal(settings.user_settings.enter_sends, true);
    assert.equal(settings.user_settings.emojiset, 'text');
    assert.equal(settings.realm_name, 'Zulip Dev');
    assert.equal(settings.realm_invite_required, false);
    assert.equal(settings.realm_mandatory_topics, true);
    assert.equal(settings.realm_message_content_edit_limit_seconds, 3600);

    // Streams: public, private (protected history, retention), archived; subscriptions with their properties; default streams.
    const subs = (await api('GET', '/api/v1/users/me/subscriptions', hamlet)).body.subscriptions as Array<Record<string, any>>;
    const denmark = subs.find((s) => s.name === 'Denmark')!;
    assert.equal(denmark.is_muted, true);
    assert.equal(denmark.color, '#76ce90');
    assert.equal(denmark.rendered_description, '<p>A <strong>public</strong> stream</p>');
    const secret = subs.find((s) => s.name === 'secret')!;
    assert.equal(secret.invite_only, true);
    assert.equal(secret.history_public_to_subscribers, false);
    assert.equal(secret.message_retention_days, 30);
    const cSubs = (await api('GET', '/api/v1/users/me/subscriptions', cordelia)).body.subscriptions as Array<Record<string, any>>;
    assert.equal(cSubs.find((s) => s.name === 'Denmark')!.pin_to_top, true);
    assert.equal(cSubs.some((s) => s.name === 'secret'), false);
    const defaults = (await api('GET', '/api/v1/default_streams', iago)).body.default_streams as Array<Record<string, any>>;
    assert.deepEqual(defaults.map((s) => s.name), ['Denmark']);

    // Messages: rendered again from their markdown (linkifier, mention, custom emoji), the export's HTML ignored.
    const fetched = (await api('GET', '/api/v1/messages', iago, { anchor: 'oldest', num_before: 0, num_after: 100, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    assert.equal(fetched.length, 8, 'Iago received every message');
    const first = fetched[0]!;
    assert.equal(first.subject, 'greetings');
    assert.equal(first.timestamp, 1_600_001_001);
    assert.match(first.content, /<strong>Denmark<\/strong>/);
    // Each stream's first message is its oldest imported one.
    assert.equal(denmark.first_message_id, first.id);
    assert.equal(subs.find((s) => s.name === 'secret')!.first_message_id, fetched.find((m) => m.display_recipient === 'secret')!.id);
    assert.match(first.content, /href="https:\/\/github.com\/zulip\/zulip\/issues\/123"/);
    assert.match(first.content, new RegExp(`data-user-id="${hamlet.id}"`));
    assert.ok(fetched.every((m) => !String(m.content).includes('<script')));
    const castle = fetched.find((m) => String(m.content).includes('castle'))!;
    assert.match(castle.content, /emoji-green_tick|green_tick/);
    assert.equal(castle.client, 'ZulipMobile');
    assert.equal(castle.last_edit_timestamp, 1_600_005_000);
    // Flags: starred kept, mentioned kept.
    assert.deepEqual(castle.flags.sort(), ['read', 'starred']);
    const hamletView = (await api('GET', '/api/v1/messages', hamlet, { anchor: 'oldest', num_before: 0, num_after: 1, narrow: '[]' })).body.messages[0];
    assert.deepEqual(hamletView.flags, ['mentioned']);
    // Reactions, custom emoji reactions mapped; one to a message the export lacks left out.
    const reactionNames = (castle.reactions as Array<Record<string, any>>).map((r) => `${r.emoji_name}:${r.reaction_type}`).sort();
    assert.deepEqual(reactionNames, ['green_tick:realm_emoji', 'thumbs_up:unicode_emoji']);
    // Edit history: ids mapped, earlier versions rendered here.
    const history = (await api('GET', `/api/v1/messages/${castle.id}/history`, iago)).body.message_history as Array<Record<string, any>>;
    assert.equal(history[0]!.content, 'A castel');
    assert.ok(history.every((h) => !String(h.rendered_content ?? '').includes('onerror')));
    // Cross-realm bots become this organization's own.
    const fromBot = fetched.find((m) => String(m.content).includes('Notification Bot says hi'))!;
    assert.equal(fromBot.sender_email, 'notification-bot@zulip.com');

    // Privacy: Cordelia sees neither the private stream nor Iago's uploads there.
    const cMessages = (await api('GET', '/api/v1/messages', cordelia, { anchor: 'oldest', num_before: 0, num_after: 100, narrow: '[]' })).body.messages as Array<Record<string, any>>;
    assert.ok(!cMessages.some((m) => String(m.content).includes('secret plans')));
    assert.ok(cMessages.some((m) => String(m.content).includes('a private word for Iago')));

    // Files: copied under the new organization's id, links rewritten, served to who may see them.
    const plans = fetched.find((m) => String(m.content).includes('secret plans'))!;
    const realmId = iago.row.realm_id;
    assert.ok(!String(plans.content).includes(`/user_uploads/${SOURCE_REALM}/`));
    const link = /href="(\/user_uploads\/[^"]+)"/.exec(plans.content)![1]!;
    assert.ok(link.startsWith(`/user_uploads/${realmId}/`));
    const file = await api('GET', link, iago);
    assert.equal(file.status, 200);
    assert.equal((await api('GET', link, cordelia)).status, 403);
    const attachments = (await api('GET', '/api/v1/attachments', iago)).body.attachments as Array<Record<string, any>>;
    assert.deepEqual(attachments.map((a) => a.name), ['notes.txt']);
    assert.equal(attachments[0]!.messages.length, 1);

    // Groups, profile fields, alert words, topic and user mutes, status, drafts, linkifiers, emoji.
    const groups = (await api('GET', '/api/v1/user_groups', iago)).body.user_groups as Array<Record<string, any>>;
    const characters = groups.find((g) => g.name === 'hamletcharacters')!;
    assert.deepEqual([...characters.members].sort(), [cordelia.id, hamlet.id].sort());
    const profile = (await api('GET', `/api/v1/users/${cordelia.id}`, iago, { include_custom_profile_fields: 'true' })).body.user.profile_data as Record<string, any>;
    const values = Object.values(profile).map((v) => v.value);
    assert.ok(values.includes('+1-555-0100'));
    assert.ok(values.includes(JSON.stringify([hamlet.id])) || values.some((v) => Array.isArray(v) && v[0] === hamlet.id));
    assert.deepEqual((await api('GET', '/api/v1/users/me/alert_words', cordelia)).body.alert_words, ['castle']);
    const state = (await api('POST', '/api/v1/register', cordelia, { fetch_event_types: JSON.stringify(['muted_topics', 'muted_users', 'drafts', 'realm_linkifiers', 'realm_emoji', 'user_status']),
      client_capabilities: JSON.stringify({ linkifier_url_template: true }) })).body;
    assert.deepEqual(state.muted_topics.map((m: unknown[]) => m.slice(0, 2)), [['Denmark', 'muted topic']]);
    assert.deepEqual(state.muted_users.map((m: Record<string, any>) => m.id), [(await person(t, 'othello@zulip.example')).id]);
    assert.deepEqual(state.drafts.map((d: Record<string, any>) => d.content), ['unsent thoughts']);
    assert.equal(state.realm_linkifiers.length, 1);
    assert.ok(Object.values(state.realm_emoji as Record<string, any>).some((e) => e.name === 'green_tick'));
    assert.equal(state.user_status[hamlet.id].status_text, 'In a meeting');
  } finally {
    await t.close();
  }
});
