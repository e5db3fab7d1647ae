import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  realmFromZulip, streamFromZulip, subscriptionFromZulip, toZulipRealm, toZulipRealmUserDefault, toZulipStream, toZulipSubscription,
  toZulipUser, toZulipUserGroup, userFromZulip, userGroupFromZulip, type MapId,
} from '../../src/import/zulip-columns.js';
import { ImportError } from '../../src/import/source.js';
import type { RealmRow, StreamRow, SubscriptionRow, UserGroupRow, UserRow } from '../../src/store/rows.js';

// Ids shift by 1000 on import, so a value that kept its source id would show.
const shift: MapId = (_kind, id) => id + 1000;
const groups = new Map([['role:members', 11], ['role:administrators', 9], ['role:everyone', 12], ['role:owners', 8]]);

const realm: RealmRow = {
  id: 2, string_id: 'acme', name: 'Acme', description: 'We make **things**', deactivated: 0, date_created: 1_700_000_000,
  settings: JSON.stringify({
    mandatory_topics: true, waiting_period_threshold: 3, message_content_edit_limit_seconds: null, default_language: 'de',
    message_edit_history_visibility_policy: 'moves', notifications_stream_id: 5, can_create_groups: 11,
    can_mention_many_users_group: { direct_members: [3], direct_subgroups: [9] },
    user_settings_defaults: { enter_sends: true, emojiset: 'text' },
  }),
};

test('a realm survives export and import: settings, announcement channel, group settings, new users\' defaults', () => {
  const z = toZulipRealm(realm, groups);
  assert.equal(z.mandatory_topics, true);
  assert.equal(z.new_stream_announcements_stream, 5);
  assert.equal(z.signup_announcements_stream, null);
  assert.equal(z.can_create_groups, 11);
  // Unset: the default system group's id.
  assert.equal(z.can_delete_any_message_group, 9);
  assert.equal(z.date_created, 1_700_000_000);
  const def = toZulipRealmUserDefault(realm);
  assert.equal(def.enter_sends, true);
  assert.equal(def.twenty_four_hour_time, false);

  const back = realmFromZulip(z, shift, def);
  const s = JSON.parse(back.settings) as Record<string, unknown>;
  assert.equal(back.name, 'Acme');
  assert.equal(back.description, 'We make **things**');
  assert.equal(back.date_created, 1_700_000_000);
  assert.equal(s.mandatory_topics, true);
  assert.equal(s.waiting_period_threshold, 3);
  assert.equal(s.message_content_edit_limit_seconds, null);
  assert.equal(s.default_language, 'de');
  assert.equal(s.message_edit_history_visibility_policy, 'moves');
  assert.equal(s.notifications_stream_id, 1005);
  assert.equal(s.signup_notifications_stream_id, undefined);
  assert.equal(s.can_create_groups, 1011);
  assert.deepEqual(s.can_mention_many_users_group, { direct_members: [1003], direct_subgroups: [1009] });
  assert.deepEqual(s.user_settings_defaults, { enter_sends: true, emojiset: 'text' });
  // Defaults are not stored.
  assert.equal('invite_required' in s, false);
});

test('hostile realm values fall back to the defaults', () => {
  const z = {
    ...toZulipRealm(realm, groups), mandatory_topics: 'yes', waiting_period_threshold: -4, email_address_visibility: 99,
    default_language: 'x'.repeat(5000), message_retention_days: 0, icon_source: '../../etc', jitsi_server_url: 'javascript:alert(1)',
    can_create_groups: 'role:members', new_stream_announcements_stream: { $gt: 1 }, __proto__: { polluted: true },
  };
  const s = JSON.parse(realmFromZulip(z, shift).settings) as Record<string, unknown>;
  for (const k of ['mandatory_topics', 'waiting_period_threshold', 'email_address_visibility', 'default_language', 'message_retention_days', 'icon_source', 'jitsi_server_url', 'can_create_groups', 'notifications_stream_id', 'polluted']) {
    assert.equal(k in s, false, k);
  }
  assert.throws(() => realmFromZulip({ name: 42 }, shift), ImportError);
});

const user: UserRow = {
  id: 7, realm_id: 2, email: 'user7@acme.test', email_lower: 'user7@acme.test', delivery_email: 'ann@example.com', full_name: 'Ann',
  password_hash: 'scrypt$secret', api_key: 'SECRETKEY', role: 200, is_active: 0, is_bot: 0, bot_type: null, bot_owner_id: null,
  is_billing_admin: 1, timezone: 'Europe/Berlin', date_joined: 1_700_000_100, avatar_source: 'U', avatar_version: 3, avatar_key: null,
  settings: JSON.stringify({ twenty_four_hour_time: true, emojiset: 'twitter', web_font_size_px: 16, color_scheme: 2 }),
  is_system_bot: 0, can_change_user_emails: 0, default_sending_stream_id: null, default_events_register_stream_id: null, default_all_public_streams: 0,
  long_term_idle: 0,
};
const bot: UserRow = { ...user, id: 8, email: 'x-bot@acme.test', email_lower: 'x-bot@acme.test', is_active: 1, is_bot: 1, bot_type: 3, bot_owner_id: 7, default_sending_stream_id: 5, role: 400, settings: '{}' };

test('users and bots survive export and import; no password or API key leaves', () => {
  const z = toZulipUser(user, 40);
  assert.equal('password' in z || 'api_key' in z || 'password_hash' in z, false);
  assert.equal(JSON.stringify(z).includes('SECRET'), false);
  assert.equal(z.recipient, 40);
  assert.equal(z.twenty_four_hour_time, true);
  assert.equal(z.enter_sends, false);
  const back = userFromZulip(z, shift);
  assert.equal(back.password_hash, null);
  assert.deepEqual(
    { ...back, settings: JSON.parse(back.settings) as unknown },
    {
      email: user.email, email_lower: user.email_lower, delivery_email: user.delivery_email, full_name: 'Ann', password_hash: null, role: 200, is_active: 0,
      is_bot: 0, bot_type: null, bot_owner_id: null, is_billing_admin: 1, can_change_user_emails: 0, timezone: 'Europe/Berlin', date_joined: 1_700_000_100,
      avatar_source: 'U', avatar_version: 3, settings: JSON.parse(user.settings) as unknown, default_sending_stream_id: null,
      default_events_register_stream_id: null, default_all_public_streams: 0,
    },
  );
  const b = userFromZulip(toZulipUser(bot, null), shift);
  assert.equal(b.is_bot, 1);
  assert.equal(b.bot_type, 3);
  assert.equal(b.bot_owner_id, 1007);
  assert.equal(b.default_sending_stream_id, 1005);
});

test('hostile user values are dropped to the defaults; unusable identities fail the import', () => {
  const z = { ...toZulipUser(user, null), role: 1, timezone: 'Mars/Olympus', avatar_source: '../x', color_scheme: 9, emojiset: '<script>', twenty_four_hour_time: 'true', web_font_size_px: 1e9, notification_sound: '/etc/passwd', is_bot: false, bot_owner: 7 };
  const back = userFromZulip(z, shift);
  assert.equal(back.role, 400);
  assert.equal(back.timezone, '');
  assert.equal(back.avatar_source, 'G');
  assert.equal(back.bot_owner_id, null);
  assert.deepEqual(JSON.parse(back.settings), {});
  assert.throws(() => userFromZulip({ ...z, email: 'nobody' }, shift), ImportError);
  assert.throws(() => userFromZulip({ ...z, full_name: '' }, shift), ImportError);
});

const stream: StreamRow = {
  id: 5, realm_id: 2, name: 'Design', name_lower: 'design', description: 'Pixels', rendered_description: '<p>Pixels</p>', invite_only: 1, is_web_public: 0,
  history_public_to_subscribers: 0, stream_post_policy: 1, can_remove_subscribers_group: '9', can_administer_channel_group: '{"direct_members":[7],"direct_subgroups":[]}',
  can_send_message_group: '12', can_add_subscribers_group: '8', can_subscribe_group: '8', is_recently_active: 1, message_retention_days: 30,
  date_created: 1_700_000_200, first_message_id: 99, deactivated: 1, recipient_id: 41, email_token: 'tok', creator_id: 7,
};

test('streams and subscriptions survive export and import', () => {
  const z = toZulipStream(stream);
  assert.equal(z.invite_only, true);
  assert.equal(z.deactivated, true);
  assert.equal(z.can_remove_subscribers_group, 9);
  const back = streamFromZulip(z, shift);
  assert.equal(back.name, 'Design');
  assert.equal(back.invite_only, 1);
  assert.equal(back.history_public_to_subscribers, 0);
  assert.equal(back.deactivated, 1);
  assert.equal(back.message_retention_days, 30);
  assert.equal(back.creator_id, 1007);
  assert.equal(back.can_remove_subscribers_group, '1009');
  assert.equal(back.can_administer_channel_group, '{"direct_members":[1007],"direct_subgroups":[]}');
  const hostile = streamFromZulip({ ...z, message_retention_days: -5, stream_post_policy: 77, can_send_message_group: 'all' }, shift);
  assert.equal(hostile.message_retention_days, null);
  assert.equal(hostile.stream_post_policy, 1);
  assert.equal(hostile.can_send_message_group, null);

  const sub: SubscriptionRow = { id: 3, user_id: 7, stream_id: 5, active: 1, is_muted: 1, color: '#76ce90', pin_to_top: 0, desktop_notifications: null, audible_notifications: 1, push_notifications: 0, email_notifications: null, wildcard_mentions_notify: null };
  const zs = toZulipSubscription(sub, 41, true);
  assert.equal(zs.recipient, 41);
  assert.deepEqual(subscriptionFromZulip(zs), { active: 1, is_muted: 1, color: '#76ce90', pin_to_top: 0, desktop_notifications: null, audible_notifications: 1, push_notifications: 0, email_notifications: null, wildcard_mentions_notify: null });
  assert.equal(subscriptionFromZulip({ ...zs, color: 'red;}' }).color, '#c2c2c2');
});

test('user groups survive export and import', () => {
  const g: UserGroupRow = {
    id: 20, realm_id: 2, name: 'designers', description: 'They draw', is_system_group: 0, can_mention_group_id: null,
    can_mention_group_anon: '{"direct_members":[7],"direct_subgroups":[12]}', can_manage_group: '9', can_join_group: null, can_add_members_group: null,
    can_leave_group: '12', can_remove_members_group: null, deactivated: 0, creator_id: 7, date_created: 1_700_000_300,
  };
  const { usergroup, named } = toZulipUserGroup(g);
  assert.deepEqual(usergroup, { id: 20, realm: 2 });
  assert.equal(named.usergroup_ptr, 20);
  const back = userGroupFromZulip(named, shift);
  assert.deepEqual(back, {
    name: 'designers', description: 'They draw', is_system_group: 0, can_mention_group_id: null,
    can_mention_group_anon: '{"direct_members":[1007],"direct_subgroups":[1012]}', can_manage_group: '1009', can_join_group: null,
    can_add_members_group: null, can_leave_group: '1012', can_remove_members_group: null, deactivated: 0, creator_id: 1007, date_created: 1_700_000_300,
  });
  // A Zulip export's anonymous group is a usergroup row of its own: the loader says what it holds.
  const viaAnon = userGroupFromZulip({ ...named, can_mention_group: 77 }, shift, (id) => (id === 77 ? { direct_members: [1], direct_subgroups: [] } : undefined));
  assert.equal(viaAnon.can_mention_group_anon, '{"direct_members":[1001],"direct_subgroups":[]}');
});
