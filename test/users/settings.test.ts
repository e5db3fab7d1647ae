import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { setRealmSettings } from '../helpers/streams.js';
import { EventLog } from '../helpers/events.js';
import { RENAMED_SETTINGS, USER_SETTING_DEFAULTS, USER_SETTING_LEVELS, wireSetting } from '../../src/lib/user-settings.js';
import { SETTING_RULES, type CanonicalSettingName } from '../../src/lib/settings-rules.js';

// PATCH /settings: every setting of the spec's table, its checks, the account fields
// (name, password, email with its confirmation), the events, and where settings act.
let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let log: EventLog;

const patch = (as: TestUser | null, params: Record<string, unknown>, url = '/settings') => t.api('PATCH', `/api/v1${url}`, { as, params });
const register = async (as: TestUser, capabilities: Record<string, unknown> = { user_settings_object: true }) =>
  assertOk(await t.api('POST', '/api/v1/register', { as, params: { client_capabilities: JSON.stringify(capabilities) } }));

/** A value other than the default, for every setting. */
function otherValue(name: CanonicalSettingName): unknown {
  const rule = SETTING_RULES[name];
  const current = USER_SETTING_DEFAULTS[name];
  const special: Partial<Record<CanonicalSettingName, unknown>> = {
    default_language: 'de', timezone: 'America/New_York', notification_sound: 'ding', email_notifications_batching_period_seconds: 300,
    web_home_view: 'all_messages', web_font_size_px: 16, web_line_height_percent: 140,
  };
  if (name in special) return special[name];
  if (rule.kind === 'bool') return !current;
  if (rule.kind === 'intIn') return rule.values.find((v) => v !== current);
  if (rule.kind === 'strIn') return rule.values.find((v) => v !== current);
  throw new Error(`no test value for ${name}`);
}

before(async () => {
  t = await testApp();
  ({ alice, bob } = await t.createUsers({ alice: { name: 'Alice Settings', password: 'alice-pass-1' }, bob: { name: 'Bob Settings' } }));
  log = new EventLog(t);
});
after(() => t.close());

test('every setting of the spec round-trips through PATCH /settings to register, as the object and as the legacy keys', async () => {
  // Today's names (the old names of renamed settings are tested in test/settings/user-settings-levels.test.ts);
  // email_address_visibility is a personal setting only from feature level 163 (unsupported before, as a test below shows).
  const oldNames = new Set(Object.values(RENAMED_SETTINGS).map((r) => r.old));
  const names = (Object.keys(SETTING_RULES) as CanonicalSettingName[])
    .filter((n) => !oldNames.has(n) && (n !== 'email_address_visibility' || t.app.ctx.config.featureLevel >= 163));
  const wanted = Object.fromEntries(names.map((n) => [n, otherValue(n)]));
  const params = Object.fromEntries(Object.entries(wanted).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const r = assertOk(await patch(alice, params));
  assert.equal('ignored_parameters_unsupported' in r, false);
  const modern = await register(alice);
  const legacy = await register(alice, {});
  // Settings of later feature levels: in the object from their level on, never in the legacy keys.
  const level = t.app.ctx.config.featureLevel;
  for (const n of names) {
    const since = USER_SETTING_LEVELS[n];
    const wire = wireSetting(n, wanted[n], level);
    if (!wire) {
      assert.equal(n in modern.user_settings, false, `user_settings.${n}`);
      continue;
    }
    assert.deepEqual(modern.user_settings[wire[0]], wire[1], `user_settings.${n}`);
    assert.deepEqual(legacy[wire[0]], since === undefined && wire[0] !== 'web_escape_navigates_to_home_view' ? wire[1] : undefined, `legacy ${n}`);
  }
  assert.equal('color_scheme' in modern, false, 'no legacy keys for a client with user_settings_object');
  // The time zone is also the one others see.
  const me = (await register(bob)).realm_users.find((u: any) => u.user_id === alice.id);
  assert.equal(me.timezone, 'America/New_York');
  // Bob's are untouched.
  assert.equal((await register(bob)).user_settings.color_scheme, USER_SETTING_DEFAULTS.color_scheme);
});

test('each value is checked, with Zulip\'s messages, and nothing is changed by a refused request', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ dense_mode: '5' }, 'dense_mode is not a boolean'],
    [{ dense_mode: 'maybe' }, 'Argument "dense_mode" is not valid JSON.'],
    [{ color_scheme: 'dark' }, 'color_scheme is not an integer'],
    [{ color_scheme: 7 }, 'Invalid color_scheme'],
    [{ demote_inactive_streams: 0 }, 'Invalid demote_inactive_streams'],
    // Level 227 renumbered the options, adding 4 ("none").
    [{ desktop_icon_count_display: FEATURE_LEVEL >= 227 ? 5 : 4 }, 'Invalid desktop_icon_count_display'],
    [{ emojiset: 'apple' }, 'Invalid emojiset'],
    // "inbox" is a home view from level 219.
    [{ default_view: FEATURE_LEVEL >= 219 ? 'nowhere' : 'inbox' }, 'Invalid default_view'],
    [{ default_language: 'xx' }, 'Invalid default_language'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'Invalid timezone'],
    [{ timezone: 'america/new_york' }, 'Invalid timezone'],
    [{ notification_sound: 'boom' }, "Invalid notification sound 'boom'"],
    [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds'],
    [{ email_notifications_batching_period_seconds: 604801 }, 'Invalid email batching period: 604801 seconds'],
    [{ full_name: 'x'.repeat(101) }, 'Name too long!'],
    [{ full_name: '   ' }, 'Name too short!'],
    [{ full_name: 'bad*name' }, 'Invalid characters in name!'],
    [{ enter_sends: true, color_scheme: 9 }, 'Invalid color_scheme'],
  ];
  const before = (await register(bob)).user_settings;
  for (const [params, msg] of cases) { const r = await patch(bob, params); assert.equal(r.status, 400, JSON.stringify(params)); assertError(r, msg); }
  assert.deepEqual((await register(bob)).user_settings, before);
  // Accepted spellings: 'none' silences, UTC and old aliases are time zones.
  assertOk(await patch(bob, { notification_sound: 'none', timezone: 'UTC' }));
  assertOk(await patch(bob, { timezone: 'US/Eastern' }));
});

test('unsupported parameters are named; the deprecated paths work alike; bots and strangers are refused', async () => {
  const r = assertOk(await patch(bob, { enter_sends: true, frobnicate: 1, email_address_visibility: 2 }));
  // A personal email_address_visibility from feature level 163 (email-visibility.test.ts).
  assert.deepEqual(r.ignored_parameters_unsupported.sort(), t.app.ctx.config.featureLevel >= 163 ? ['frobnicate'] : ['email_address_visibility', 'frobnicate']);
  assertOk(await patch(bob, { twenty_four_hour_time: true }, '/settings/display'));
  assertOk(await patch(bob, { enable_sounds: false }, '/settings/notifications'));
  const s = (await register(bob)).user_settings;
  assert.deepEqual([s.enter_sends, s.twenty_four_hour_time, s.enable_sounds], [true, true, false]);
  const bot = await t.createBot(bob, { fullName: 'Settings Bot', shortName: 'settings' });
  assertError(await patch(bot, { enter_sends: true }), 'This endpoint does not accept bot requests.');
  assertUnauthenticated(await patch(null, { enter_sends: true }));
});

test('events: user_settings to the user\'s own clients, legacy events only to clients without the capability, nobody else', async () => {
  log.clear();
  assertOk(await patch(bob, { high_contrast_mode: true, enable_digest_emails: false, send_read_receipts: false }));
  const modern = log.find('user_settings');
  assert.deepEqual(modern.map((e) => [(e.event as any).property, (e.event as any).value]),
    [['high_contrast_mode', true], ['enable_digest_emails', false], ['send_read_receipts', false]]);
  assert.ok(modern.every((e) => e.userIds.length === 1 && e.userIds[0] === bob.id));
  assert.deepEqual(log.find('update_display_settings').map((e) => (e.event as any).setting_name), ['high_contrast_mode']);
  assert.deepEqual(log.find('update_global_notifications').map((e) => (e.event as any).notification_name), ['enable_digest_emails']);
  // An unchanged value is no change.
  log.clear();
  assertOk(await patch(bob, { high_contrast_mode: true }));
  assert.equal(log.find('user_settings').length, 0);
});

test('full name: changed and announced; ignored when the organization forbids it, except for administrators', async () => {
  log.clear();
  assertOk(await patch(bob, { full_name: '  Bob Renamed  ' }));
  assert.deepEqual(log.one('realm_user', 'update').event, { type: 'realm_user', op: 'update', person: { user_id: bob.id, full_name: 'Bob Renamed' } });
  await setRealmSettings(t, { name_changes_disabled: true });
  assertOk(await patch(bob, { full_name: 'Not Allowed' }));
  assert.equal((await register(bob)).full_name, 'Bob Renamed');
  assertOk(await patch(t.owner, { full_name: 'Owner Renamed' }));
  assert.equal((await register(t.owner)).full_name, 'Owner Renamed');
  await setRealmSettings(t, { name_changes_disabled: false });
});

test('password: needs the old one, must not be weak, and then logs in', async () => {
  const fetchKey = (password: string) => t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username: alice.email, password } });
  assertError(await patch(alice, { new_password: 'new-secret-9' }), 'Wrong password!');
  assertError(await patch(alice, { old_password: 'not-it', new_password: 'new-secret-9' }), 'Wrong password!');
  assertError(await patch(alice, { old_password: 'alice-pass-1', new_password: 'abc' }), 'New password is too weak!');
  assertOk(await fetchKey('alice-pass-1'));
  assertOk(await patch(alice, { old_password: 'alice-pass-1', new_password: 'new-secret-9' }));
  assert.equal((await fetchKey('alice-pass-1')).status, 401);
  assert.equal(assertOk(await fetchKey('new-secret-9')).api_key, alice.apiKey);
});

test('email: a change waits for the link mailed to the new address; the link works once', async () => {
  const outbox = t.app.ctx.mail.outbox!;
  const mailsTo = (addr: string) => (fs.existsSync(outbox) ? fs.readdirSync(outbox) : [])
    .map((f) => fs.readFileSync(path.join(outbox, f), 'utf8')).filter((m) => m.includes(`To: ${addr}`));
  assertError(await patch(alice, { email: 'not an address' }), 'Invalid address.');
  assertError(await patch(alice, { email: bob.email }), 'Already has an account.');
  // From level 163 the address is alice's own setting; the first test left it hidden from
  // non-members (2), so her API `email` is user{id}@host and only delivery_email changes.
  const hidden = FEATURE_LEVEL >= 163;
  if (hidden) assertOk(await patch(alice, { email_address_visibility: 2 }));
  const apiEmail = (await register(alice)).email;
  assert.equal(apiEmail, hidden ? `user${alice.id}@parley.test` : alice.email);
  assertOk(await patch(alice, { email: 'alice.new@parley.test' }));
  assert.equal((await register(alice)).email, apiEmail, 'unchanged until confirmed');
  assert.equal((await register(alice)).delivery_email, alice.email, 'unchanged until confirmed');
  const [mail] = mailsTo('alice.new@parley.test');
  assert.ok(mail, 'the confirmation mail is in the outbox');
  const link = /(http\S+\/accounts\/confirm_new_email\/\S+\/)/.exec(mail!.replace(/=\r?\n/g, ''))![1]!;
  log.clear();
  const page = await t.api('GET', new URL(link).pathname, { as: null });
  assert.equal(page.status, 200);
  assert.ok(mailsTo(alice.email).some((m) => m.includes('alice.new@parley.test')), 'the old address is told');
  // Clients now sign in with the new address.
  alice = { ...alice, email: 'alice.new@parley.test' };
  const me = await register(alice);
  assert.equal(me.email, hidden ? apiEmail : 'alice.new@parley.test');
  assert.equal(me.delivery_email, 'alice.new@parley.test');
  // Zulip's do_change_user_delivery_email: delivery_email to those who may see it; new_email only when the address is public.
  const updates = log.find('realm_user', 'update').filter((e) => e.userIds.includes(bob.id)).map((e) => (e.event as any).person);
  if (hidden) {
    assert.ok(updates.some((p) => p.user_id === alice.id && p.delivery_email === 'alice.new@parley.test'), JSON.stringify(updates));
    assert.ok(!updates.some((p) => 'new_email' in p), JSON.stringify(updates));
  } else {
    assert.ok(updates.some((p) => p.new_email === 'alice.new@parley.test'), JSON.stringify(updates));
  }
  assert.equal((await t.api('GET', new URL(link).pathname, { as: null })).status, 404, 'a used link');
  for (const token of ['not-a-token', 'x'.repeat(500), '%00', "'; DROP TABLE users; --", '..%2F..%2Fetc']) {
    assert.equal((await t.api('GET', `/accounts/confirm_new_email/${encodeURIComponent(token)}/`, { as: null })).status, 404, token);
  }
  await setRealmSettings(t, { email_changes_disabled: true });
  assertError(await patch(bob, { email: 'bob.new@parley.test' }), 'Email address changes are disabled in this organization.');
  await setRealmSettings(t, { email_changes_disabled: false });
});

test('settings take effect: turning drafts synchronisation off deletes the stored drafts, silently, and refuses new ones', async () => {
  assertOk(await t.api('POST', '/api/v1/drafts', { as: bob, params: { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'keep me?' }]) } }));
  assert.equal((await register(bob)).drafts.length, 1);
  log.clear();
  assertOk(await patch(bob, { enable_drafts_synchronization: false }));
  assert.equal(log.find('drafts').length, 0, 'no events delete them');
  assertError(await t.api('POST', '/api/v1/drafts', { as: bob, params: { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'x' }]) } }),
    'User has disabled synchronizing drafts.');
  assertOk(await patch(bob, { enable_drafts_synchronization: true }));
  assert.deepEqual((await register(bob)).drafts, []);
});

test('settings take effect: typing notifications stop, presence is hidden', async () => {
  assertOk(await patch(bob, { send_private_typing_notifications: false }));
  assertError(await t.api('POST', '/api/v1/typing', { as: bob, params: { op: 'start', to: JSON.stringify([alice.id]) } }),
    'User has disabled typing notifications for private messages');
  assertOk(await patch(bob, { send_private_typing_notifications: true }));
  assertOk(await t.api('POST', '/api/v1/typing', { as: bob, params: { op: 'start', to: JSON.stringify([alice.id]) } }));

  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active' } }));
  const seen = async () => Object.keys(assertOk(await t.api('GET', '/api/v1/realm/presence', { as: alice })).presences);
  // Presence is keyed by the API email: user{id}@host from level 163, since an earlier test hid bob's address.
  const bobEmail = (await register(bob)).email as string;
  assert.equal(bobEmail, FEATURE_LEVEL >= 163 ? `user${bob.id}@parley.test` : bob.email);
  assert.ok((await seen()).includes(bobEmail));
  assertOk(await patch(bob, { presence_enabled: false }));
  assert.equal((await seen()).includes(bobEmail), false);
  assertError(await t.api('GET', `/api/v1/users/${bob.id}/presence`, { as: alice }), `No presence data for ${bobEmail}`);
  log.clear();
  assertOk(await t.api('POST', '/api/v1/users/me/presence', { as: bob, params: { status: 'active', new_user_input: true } }));
  assert.equal(log.find('presence').length, 0, 'a hidden user\'s presence is not broadcast');
  assertOk(await patch(bob, { presence_enabled: true }));
  assert.ok((await seen()).includes(bobEmail));
});
