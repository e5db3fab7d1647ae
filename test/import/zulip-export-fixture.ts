/**
 * A small Zulip export written the way Zulip's `manage.py export` lays one out (realm.json,
 * messages-000001.json, uploads/ and emoji/ with their records.json), covering each table the
 * importer reads. Ours, not Zulip's: built from the format, so tests can vary it.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { scratchDir } from '../helpers/scratch.js';

export const SOURCE_REALM = 7;
export const UPLOAD_PATH = `${SOURCE_REALM}/ab/Xy12Zq/notes.txt`;
export const IMAGE_PATH = `${SOURCE_REALM}/cd/Pq34Rs/cat.png`;

type Row = Record<string, unknown>;

export interface ZulipFixture { dir: string; realm: Record<string, Row[]>; messages: Row[]; usermessages: Row[] }

/** Users 11..16: Iago (owner), Cordelia (member), Hamlet (admin), Othello (guest, deactivated), a bot of Iago's, a mirror dummy. */
export async function zulipExport(tweak?: (f: ZulipFixture) => void): Promise<ZulipFixture> {
  const dir = scratchDir('parley-zulip-export-');
  const t0 = 1_600_000_000;
  const user = (id: number, email: string, name: string, extra: Row = {}): Row => ({
    id, email, delivery_email: email, full_name: name, realm: SOURCE_REALM, role: 400, is_active: true, is_bot: false, bot_type: null,
    bot_owner: null, timezone: 'Europe/Paris', date_joined: t0 + id, avatar_source: 'G', avatar_version: 1, is_mirror_dummy: false,
    enter_sends: true, twenty_four_hour_time: true, emojiset: 'text', ...extra,
  });
  const realm: Record<string, Row[]> = {
    zerver_realm: [{ id: SOURCE_REALM, string_id: 'zulip', name: 'Zulip Dev', description: 'The *dev* realm', date_created: t0, deactivated: false,
      invite_required: false, mandatory_topics: true, message_content_edit_limit_seconds: 3600, default_language: 'de', waiting_period_threshold: 3 }],
    zerver_client: [{ id: 1, name: 'website' }, { id: 2, name: 'ZulipMobile' }],
    zerver_userprofile: [
      user(11, 'iago@zulip.example', 'Iago', { role: 100 }),
      user(12, 'cordelia@zulip.example', 'Cordelia, Lear\'s daughter', { avatar_source: 'U', avatar_version: 4 }),
      user(13, 'hamlet@zulip.example', 'King Hamlet', { role: 200, timezone: 'Not/AZone' }),
      user(14, 'othello@zulip.example', 'Othello', { role: 600, is_active: false }),
      user(15, 'helper-bot@zulip.example', 'Helper', { is_bot: true, bot_type: 1, bot_owner: 11, default_sending_stream: 101 }),
    ],
    zerver_userprofile_mirrordummy: [user(16, 'irc-user@irc.example', 'IRC User', { is_mirror_dummy: true, is_active: false })],
    zerver_userprofile_crossrealm: [{ id: 1, email: 'notification-bot@zulip.com', recipient_id: 1 }, { id: 2, email: 'welcome-bot@zulip.com', recipient_id: 2 }],
    zerver_stream: [
      { id: 101, realm: SOURCE_REALM, name: 'Denmark', description: 'A **public** stream', invite_only: false, history_public_to_subscribers: true, date_created: t0 + 100, deactivated: false, recipient: 21 },
      { id: 102, realm: SOURCE_REALM, name: 'secret', description: 'Private', invite_only: true, history_public_to_subscribers: false, date_created: t0 + 101, deactivated: false, recipient: 22, message_retention_days: 30 },
      { id: 103, realm: SOURCE_REALM, name: 'old stuff', description: '', invite_only: false, history_public_to_subscribers: true, date_created: t0 + 102, deactivated: true, recipient: 23 },
    ],
    zerver_recipient: [
      { id: 1, type: 1, type_id: 1 }, { id: 2, type: 1, type_id: 2 },
      ...[11, 12, 13, 14, 15, 16].map((u) => ({ id: u + 20, type: 1, type_id: u })),
      { id: 21, type: 2, type_id: 101 }, { id: 22, type: 2, type_id: 102 }, { id: 23, type: 2, type_id: 103 },
      { id: 40, type: 3, type_id: 501 },
    ],
    zerver_subscription: [
      ...[11, 12, 13, 15].map((u, i) => ({ id: 200 + i, user_profile: u, recipient: 21, active: true, is_muted: u === 13, color: '#76ce90', pin_to_top: u === 12, desktop_notifications: null, audible_notifications: null, push_notifications: null, email_notifications: true, wildcard_mentions_notify: null })),
      ...[11, 13].map((u, i) => ({ id: 210 + i, user_profile: u, recipient: 22, active: true, is_muted: false, color: '#e79ab5', pin_to_top: false })),
      { id: 220, user_profile: 12, recipient: 23, active: true, is_muted: false, color: '#c2c2c2', pin_to_top: false },
      ...[11, 12, 13].map((u, i) => ({ id: 230 + i, user_profile: u, recipient: 40, active: true, is_muted: false, color: '#c2c2c2', pin_to_top: false })),
    ],
    zerver_huddle: [{ id: 501, huddle_hash: 'x', recipient: 40 }],
    zerver_defaultstream: [{ id: 1, realm: SOURCE_REALM, stream: 101 }],
    zerver_usergroup: [{ id: 301, realm: SOURCE_REALM }, { id: 302, realm: SOURCE_REALM }, { id: 303, realm: SOURCE_REALM }],
    zerver_namedusergroup: [
      { usergroup_ptr: 301, name: 'role:administrators', description: 'Administrators', is_system_group: true, realm_for_sharding: SOURCE_REALM },
      { usergroup_ptr: 302, name: 'hamletcharacters', description: 'Characters of Hamlet', is_system_group: false, realm_for_sharding: SOURCE_REALM, can_mention_group: 301, deactivated: false },
    ],
    zerver_usergroupmembership: [{ id: 1, user_group: 302, user_profile: 12 }, { id: 2, user_group: 302, user_profile: 13 }, { id: 3, user_group: 303, user_profile: 11 }],
    zerver_groupgroupmembership: [],
    zerver_customprofilefield: [
      { id: 601, realm: SOURCE_REALM, name: 'Phone number', hint: 'Your phone', field_type: 1, field_data: '', order: 1 },
      { id: 602, realm: SOURCE_REALM, name: 'Mentor', hint: '', field_type: 6, field_data: '', order: 2 },
    ],
    zerver_customprofilefieldvalue: [
      { id: 1, user_profile: 12, field: 601, value: '+1-555-0100', rendered_value: '<p>hostile</p>' },
      { id: 2, user_profile: 12, field: 602, value: '[13]' },
    ],
    zerver_realmemoji: [{ id: 701, realm: SOURCE_REALM, name: 'green_tick', author: 11, file_name: 'green_tick.png', deactivated: false, is_animated: false }],
    zerver_realmfilter: [{ id: 801, realm: SOURCE_REALM, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}', order: 0 }],
    zerver_alertword: [{ id: 1, user_profile: 12, realm: SOURCE_REALM, word: 'castle' }],
    zerver_usertopic: [{ id: 1, user_profile: 12, stream: 101, topic_name: 'muted topic', visibility_policy: 1, last_updated: t0 + 500 }],
    zerver_muteduser: [{ id: 1, user_profile: 12, muted_user: 14, date_muted: t0 + 600 }],
    zerver_userstatus: [{ id: 1, user_profile: 13, status_text: 'In a meeting', emoji_name: 'calendar', emoji_code: '1f4c6', reaction_type: 'unicode_emoji', timestamp: t0 + 700 }],
    zerver_draft: [{ id: 1, user_profile: 12, recipient: 21, topic: 'draft topic', content: 'unsent thoughts', last_edit_time: t0 + 800 }],
    zerver_realmuserdefault: [{ id: 1, realm: SOURCE_REALM, enter_sends: true, emojiset: 'twitter' }],
    zerver_reaction: [
      { id: 1, message: 1002, user_profile: 12, emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
      { id: 2, message: 1002, user_profile: 13, emoji_name: 'green_tick', emoji_code: '701', reaction_type: 'realm_emoji' },
      { id: 3, message: 99999, user_profile: 13, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' },
    ],
    zerver_attachment: [
      { id: 901, file_name: 'notes.txt', path_id: UPLOAD_PATH, owner: 11, realm: SOURCE_REALM, create_time: t0 + 900, size: 11, messages: [1003], is_realm_public: true },
      { id: 902, file_name: 'cat.png', path_id: IMAGE_PATH, owner: 13, realm: SOURCE_REALM, create_time: t0 + 901, messages: [1005], is_realm_public: false },
    ],
  };
  const m = (id: number, sender: number, recipient: number, content: string, extra: Row = {}): Row => ({
    id, sender, recipient, subject: recipient === 21 || recipient === 22 || recipient === 23 ? 'greetings' : '', content,
    rendered_content: '<script>alert(1)</script>', date_sent: t0 + id, sending_client: 1, last_edit_time: null, edit_history: null, realm: SOURCE_REALM, ...extra,
  });
  const messages: Row[] = [
    m(1001, 11, 21, 'Hello **Denmark**, see #123 and @**King Hamlet**'),
    m(1002, 13, 21, 'A castle :green_tick:', { sending_client: 2, last_edit_time: t0 + 5000,
      edit_history: JSON.stringify([{ user_id: 13, timestamp: t0 + 5000, prev_content: 'A castel', prev_rendered_content: '<img src=x onerror=alert(1)>', prev_topic: 'old topic', topic: 'greetings' }]) }),
    m(1003, 11, 22, `secret plans [notes.txt](/user_uploads/${UPLOAD_PATH})`),
    m(1004, 12, 31, 'a private word for Iago'),
    m(1005, 13, 40, `group chat ![cat](/user_uploads/${IMAGE_PATH})`),
    m(1006, 1, 21, 'Notification Bot says hi'),
    m(1007, 16, 21, 'from the IRC mirror'),
    m(1008, 12, 21, 'in the muted topic', { subject: 'muted topic' }),
  ];
  const um = (message: number, user: number, flags: number): Row => ({ id: message * 100 + user, message, user_profile: user, flags_mask: flags });
  const usermessages: Row[] = [
    um(1001, 11, 1), um(1001, 12, 0), um(1001, 13, 8), um(1001, 15, 1),
    um(1002, 11, 1 | 2), um(1002, 12, 512), um(1002, 13, 1),
    um(1003, 11, 1), um(1003, 13, 0),
    um(1004, 12, 1 | 2048), um(1004, 11, 2048),
    um(1005, 11, 2048), um(1005, 12, 2048), um(1005, 13, 1 | 2048),
    um(1006, 11, 0), um(1006, 12, 0),
    um(1007, 11, 1), um(1008, 12, 1), um(1008, 11, 0),
  ];
  const fixture: ZulipFixture = { dir, realm, messages, usermessages };
  tweak?.(fixture);
  fs.writeFileSync(path.join(dir, 'realm.json'), JSON.stringify(fixture.realm));
  fs.writeFileSync(path.join(dir, 'messages-000001.json'), JSON.stringify({ zerver_message: fixture.messages, zerver_usermessage: fixture.usermessages }));
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a7' } }).png().toBuffer();
  const put = (rel: string, body: Buffer | string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  };
  put(`uploads/${UPLOAD_PATH}`, 'hello notes');
  put(`uploads/${IMAGE_PATH}`, png);
  put('uploads/records.json', JSON.stringify([
    { path: UPLOAD_PATH, s3_path: UPLOAD_PATH, realm_id: SOURCE_REALM, user_profile_id: 11, size: 11, content_type: 'text/plain' },
    { path: IMAGE_PATH, s3_path: IMAGE_PATH, realm_id: SOURCE_REALM, user_profile_id: 13, size: png.length, content_type: 'image/png' },
  ]));
  put(`emoji/${SOURCE_REALM}/emoji/images/green_tick.png`, png);
  put(`avatars/${SOURCE_REALM}/0123abcd.original`, png);
  put('avatars/records.json', JSON.stringify([{ path: `${SOURCE_REALM}/0123abcd.original`, s3_path: `${SOURCE_REALM}/0123abcd.original`, realm_id: SOURCE_REALM, user_profile_id: 12, size: png.length }]));
  put('emoji/records.json', JSON.stringify([{ path: `${SOURCE_REALM}/emoji/images/green_tick.png`, file_name: 'green_tick.png', realm_id: SOURCE_REALM, user_profile_id: 11 }]));
  return fixture;
}
