/**
 * Parley -> parley export -> parley import zulip gives back the same organization: everything
 * each person sees through the API is the same in the copy, ids aside. Ids differ (they are
 * remapped), so every view is written with names and addresses instead of ids.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { HOST, asTestUser, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { postMultipart } from '../helpers/multipart.js';
import { buildOrg } from '../export/build-org.js';
import { exportRealm } from '../../src/export/export-realm.js';
import { runImport } from '../../src/import/run.js';
import { NO_PROGRESS } from '../../src/import/source.js';
import { users } from '../../src/store/repos/users.js';

type Json = Record<string, any>;

/** One organization's view, with ids turned into names. */
class Namer {
  users = new Map<number, string>();
  streams = new Map<number, string>();
  groups = new Map<number, string>();
  messages = new Map<number, number>();
  constructor(private readonly realmId: number) {}

  html(text: string): string {
    return text
      .replace(/data-user-id="(\d+)"/g, (_, id) => `data-user-id="${this.users.get(Number(id)) ?? `?${id}`}"`)
      .replace(/data-user-group-id="(\d+)"/g, (_, id) => `data-user-group-id="${this.groups.get(Number(id)) ?? `?${id}`}"`)
      .replace(/data-stream-id="(\d+)"/g, (_, id) => `data-stream-id="${this.streams.get(Number(id)) ?? `?${id}`}"`)
      .replace(/\/(stream|channel)\/(\d+)-/g, (_, w, id) => `/${w}/${this.streams.get(Number(id)) ?? `?${id}`}-`)
      .replace(new RegExp(`/user_uploads/${this.realmId}/`, 'g'), '/user_uploads/R/')
      .replace(new RegExp(`/user_avatars/${this.realmId}/emoji/images/\\d+`, 'g'), '/user_avatars/R/emoji/images/E')
      .replace(/\/near\/(\d+)/g, (_, id) => `/near/${this.messages.get(Number(id)) ?? `?${id}`}`);
  }

  person(id: unknown): string {
    return this.users.get(Number(id)) ?? `?${String(id)}`;
  }
}

async function view(t: TestApp, host: string, realmId: number, emails: string[]): Promise<Json> {
  const realmUsers = await users.listByRealm(t.app.ctx.store.db, realmId);
  const as = (email: string): TestUser => asTestUser(realmUsers.find((u) => u.delivery_email === email)!);
  const api = async (email: string, method: string, url: string, params?: Record<string, unknown>) =>
    assertOk(await t.api(method, url, { as: as(email), host, ...(params ? { params } : {}) }));
  const n = new Namer(realmId);
  const admin = emails[0]!;
  const members = (await api(admin, 'GET', '/api/v1/users')).members as Json[];
  for (const m of members) n.users.set(m.user_id, m.delivery_email ?? m.email);
  for (const bot of (await api(admin, 'POST', '/api/v1/register', { fetch_event_types: JSON.stringify(['realm_user']) })).cross_realm_bots as Json[]) n.users.set(bot.user_id, bot.email);
  const streams = (await api(admin, 'GET', '/api/v1/streams', { include_all_active: 'true' })).streams as Json[];
  for (const s of streams) n.streams.set(s.stream_id, s.name);
  const groups = (await api(admin, 'GET', '/api/v1/user_groups')).user_groups as Json[];
  for (const g of groups) n.groups.set(g.id, g.name);
  const out: Json = {
    users: members.map((m) => ({ email: n.person(m.user_id), name: m.full_name, role: m.role, active: m.is_active, bot: m.is_bot, tz: m.timezone,
      owner: m.bot_owner_id ? n.person(m.bot_owner_id) : null, avatar: String(m.avatar_url ?? '').startsWith('/user_avatars/') })).sort((a, b) => a.email.localeCompare(b.email)),
    streams: streams.map((s) => ({ name: s.name, description: s.description, rendered: s.rendered_description, invite_only: s.invite_only,
      history: s.history_public_to_subscribers, retention: s.message_retention_days, web: s.is_web_public })).sort((a, b) => a.name.localeCompare(b.name)),
    groups: groups.filter((g) => !g.is_system_group).map((g) => ({ name: g.name, description: g.description, members: (g.members as number[]).map((id) => n.person(id)).sort() })),
    systemGroups: groups.filter((g) => g.is_system_group).map((g) => ({ name: g.name, members: (g.members as number[]).map((id) => n.person(id)).sort() })).sort((a, b) => a.name.localeCompare(b.name)),
    people: {},
  };
  for (const email of emails) {
    const all = (await api(email, 'GET', '/api/v1/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' })).messages as Json[];
    all.forEach((m, i) => n.messages.set(m.id, i));
    const state = await api(email, 'POST', '/api/v1/register', { fetch_event_types: JSON.stringify([
      'alert_words', 'muted_topics', 'muted_users', 'user_status', 'realm_linkifiers', 'realm_emoji', 'custom_profile_fields', 'default_streams',
      'user_settings', 'realm', 'drafts', 'scheduled_messages', 'saved_snippets', 'subscription', 'recent_private_conversations']), include_subscribers: 'true' });
    const person: Json = {
      messages: all.map((m) => ({
        sender: n.person(m.sender_id), to: m.type === 'stream' ? m.display_recipient : (m.display_recipient as Json[]).map((r) => r.email).sort(),
        topic: m.subject, content: n.html(m.content), flags: [...m.flags].sort(), time: m.timestamp, edited: m.last_edit_timestamp ?? null,
        reactions: (m.reactions as Json[]).map((r) => `${r.emoji_name}/${r.reaction_type}/${n.person(r.user_id)}`).sort(), client: m.client,
      })),
      subscriptions: (state.subscriptions as Json[]).map((s) => ({ name: s.name, color: s.color, muted: s.is_muted, pinned: s.pin_to_top,
        email: s.email_notifications, subscribers: (s.subscribers as number[]).map((id) => n.person(id)).sort() })).sort((a, b) => a.name.localeCompare(b.name)),
      alertWords: state.alert_words,
      mutedTopics: (state.muted_topics as unknown[][]).map((m) => m.slice(0, 2)),
      mutedUsers: (state.muted_users as Json[]).map((m) => n.person(m.id)),
      statuses: Object.fromEntries(Object.entries(state.user_status as Json).map(([id, st]) => [n.person(id), st])),
      linkifiers: (state.realm_linkifiers as Json[]).map((l) => [l.pattern, l.url_template]),
      emoji: Object.values(state.realm_emoji as Json).map((e) => [e.name, e.deactivated, n.person(e.author_id)]).sort(),
      fields: (state.custom_profile_fields as Json[]).map((f) => [f.name, f.type, f.hint, f.order]),
      defaultStreams: (state.realm_default_streams as Json[]).map((s) => s.name).sort(),
      settings: state.user_settings,
      realm: Object.fromEntries(Object.entries(state).filter(([k]) => k.startsWith('realm_') && !/(_id|_url|_uri|realm_users|realm_default_streams|realm_linkifiers|realm_emoji|realm_filters|_group|realm_date_created|realm_host|realm_icon|realm_logo|realm_night_logo|realm_string_id|realm_signup|realm_bot_domain)/.test(k))),
      drafts: ((state.drafts ?? []) as Json[]).map((d) => ({ type: d.type, to: d.type === 'stream' ? (d.to as number[]).map((id) => n.streams.get(id)) : (d.to as number[]).map((id) => n.person(id)).sort(), topic: d.topic, content: d.content })),
      scheduled: ((state.scheduled_messages ?? []) as Json[]).map((m) => ({ type: m.type, topic: m.topic, content: m.content, at: m.scheduled_delivery_timestamp,
        to: m.type === 'stream' ? n.streams.get(m.to) : (m.to as number[]).map((id) => n.person(id)).sort() })),
      snippets: ((state.saved_snippets ?? []) as Json[]).map((x) => [x.title, x.content]),
    };
    const profile = (await api(email, 'GET', '/api/v1/users/me')) as Json;
    person.profile = profile.profile_data ? Object.values(profile.profile_data).map((v) => (v as Json).value) : [];
    out.people[email] = person;
  }
  return out;
}

test('export then import gives back the same organization, as each person sees it', { timeout: 180_000 }, async () => {
  const t = await testApp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-round-trip-'));
  try {
    const org = await buildOrg(t);
    // An uploaded avatar comes along too.
    const png = await sharp({ create: { width: 30, height: 30, channels: 3, background: '#c36' } }).png().toBuffer();
    assertOk(await postMultipart(t, '/api/v1/users/me/avatar', org.alice, [{ field: 'file', filename: 'me.png', content: png }]));
    const file = path.join(dir, 'org.tar.gz');
    await exportRealm(t.app.ctx, t.realm.id, file, NO_PROGRESS);
    const imported = await runImport(t.app.ctx, 'zulip', file, { stringId: 'copy' });
    const emails = [t.owner.row.delivery_email, org.alice.row.delivery_email, org.bob.row.delivery_email, org.carol.row.delivery_email];
    const before = await view(t, HOST, t.realm.id, emails);
    const after = await view(t, `copy.${HOST}`, imported.realmId, emails);
    assert.deepEqual(after.users, before.users);
    assert.deepEqual(after.streams, before.streams);
    assert.deepEqual(after.groups, before.groups);
    assert.deepEqual(after.systemGroups, before.systemGroups);
    for (const email of emails) {
      for (const key of Object.keys(before.people[email])) {
        assert.deepEqual(after.people[email][key], before.people[email][key], `${email}: ${key}`);
      }
    }
  } finally {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
