import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zulip from 'zulip-js';
import { testApp, people, createAcme, ROLES, FEATURE_LEVEL, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated, sorted } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { createStreams } from '../helpers/streams.js';
import { sendMessage } from '../helpers/messages.js';
import { scaledMs } from '../helpers/machine.js';

// Linkifiers end to end: Zulip 5's endpoints, validation messages in its order, the events
// (current and legacy form) every active user hears, register's state, and what they do
// to rendered messages and to topic_links, read through every path (send event, GET
// /messages, after a change that retires the cached message JSON).
let t: TestApp;
let log: EventLog;
let admin: TestUser, member: TestUser, guest: TestUser, alice: TestUser, acmeOwner: TestUser;

before(async () => {
  t = await testApp();
  log = new EventLog(t);
  ({ admin, member, guest } = await t.createUsers({ admin: ROLES.admin, member: ROLES.member, guest: ROLES.guest }));
  ({ alice } = await t.createUsers(people('alice')));
  await createStreams(t, { general: [t.owner, admin, member, alice] });
  ({ owner: acmeOwner } = await createAcme(t));
});
after(() => t.close());

const add = (as: TestUser | null, params: Record<string, unknown>) => t.api('POST', '/api/v1/realm/filters', { as, params });
const list = async (as: TestUser = member) => assertOk(await t.api('GET', '/api/v1/realm/linkifiers', { as })).linkifiers;
const TRAC = { pattern: '#(?P<id>[0-9]{2,8})', url_format_string: 'https://trac.example.com/ticket/%(id)s' };
// Level 176: GET /realm/linkifiers answers RFC 6570 templates (linkifier-templates.test.ts), a missing URL is url_template's.
const TEMPLATES = FEATURE_LEVEL >= 176;
const URL_PARAM = TEMPLATES ? 'url_template' : 'url_format_string';
const listed = (pattern: string, format: string, template: string, id: number) =>
  (TEMPLATES ? { pattern, url_template: template, id } : { pattern, url_format: format, id });

async function clearAll(): Promise<void> {
  for (const l of await list()) assertOk(await t.api('DELETE', `/api/v1/realm/filters/${l.id}`, { as: admin }));
}

test('requires authentication', async () => {
  assertUnauthenticated(await t.api('GET', '/api/v1/realm/linkifiers', { as: null }));
  assertUnauthenticated(await t.api('GET', '/api/v1/realm/filters', { as: null }));
  assertUnauthenticated(await add(null, TRAC));
  assertUnauthenticated(await t.api('PATCH', '/api/v1/realm/filters/1', { as: null, params: TRAC }));
  assertUnauthenticated(await t.api('DELETE', '/api/v1/realm/filters/1', { as: null }));
});

test('only administrators change linkifiers; the role is checked before any parameter', async () => {
  for (const who of [member, guest]) {
    assertError(await add(who, {}), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    assertError(await t.api('PATCH', '/api/v1/realm/filters/15', { as: who }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    assertError(await t.api('DELETE', '/api/v1/realm/filters/15', { as: who }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  }
  assertError(await add(admin, { url_format_string: TRAC.url_format_string }), "Missing 'pattern' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'pattern' });
  assertError(await add(admin, { pattern: TRAC.pattern }), `Missing '${URL_PARAM}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: URL_PARAM });
});

test('create: every validation message of Zulip 5, in its order, with the messages by field', async () => {
  const refused = async (params: Record<string, string>, msg: string, field = '__all__') => {
    const r = await add(admin, params);
    assertError(r, msg, 'BAD_REQUEST', 400, { errors: r.body.errors });
    assert.ok(r.body.errors[field].includes(msg), JSON.stringify(r.body.errors));
  };
  await refused({ pattern: '', url_format_string: TRAC.url_format_string }, 'This field cannot be blank.', 'pattern');
  await refused({ pattern: '  ', url_format_string: TRAC.url_format_string }, 'This field cannot be blank.', 'pattern');
  await refused({ pattern: TRAC.pattern, url_format_string: '' }, 'This field cannot be blank.', 'url_format_string');
  await refused({ pattern: '(foo', url_format_string: TRAC.url_format_string }, 'Bad regular expression: missing ): (foo');
  await refused({ pattern: 'ZUL-(?P<id>\\d????)', url_format_string: TRAC.url_format_string }, 'Bad regular expression: bad repetition operator: ????');
  // What RE2 refuses, that a backtracking engine would run: backreferences and lookarounds.
  await refused({ pattern: '(?P<id>a)\\1', url_format_string: TRAC.url_format_string }, 'Bad regular expression: invalid escape sequence: \\1');
  await refused({ pattern: '(?<=x)(?P<id>a)', url_format_string: TRAC.url_format_string }, 'Bad regular expression: invalid perl operator: (?<');
  await refused({ pattern: 'ZUL-(?P<id>\\d+)', url_format_string: '$fgfg' }, 'Enter a valid URL.', 'url_format_string');
  await refused({ pattern: 'ZUL-(?P<id>\\d+)', url_format_string: 'javascript://x.com/%(id)s' }, 'Enter a valid URL.', 'url_format_string');
  await refused({ pattern: 'ZUL-(?P<id>\\d+)', url_format_string: 'https://example.com/%(foo)' }, 'Invalid format string in URL.', 'url_format_string');
  await refused({ pattern: 'ZUL-(?P<id>\\d+)', url_format_string: 'https://realm.com/my_realm_filter/' },
    "Group 'id' in linkifier pattern is not present in URL format string.");
  await refused({ pattern: 'ZUL-(?P<id>\\d+)', url_format_string: 'https://realm.com/my_realm_filter/%(hello)s' },
    "Group 'hello' in URL format string is not present in linkifier pattern.");
  await refused({ pattern: 'ZUL-(?P<id>\\d+)-(?P<hello>\\d+)-(?P<world>\\d+)', url_format_string: 'https://realm.com/%(hello)s' },
    "Group 'id' in linkifier pattern is not present in URL format string.");
  // A field's own error comes before the whole's.
  const both = await add(admin, { pattern: '(foo', url_format_string: '$x' });
  assert.equal(both.body.msg, 'Enter a valid URL.');
  assert.deepEqual(both.body.errors, { url_format_string: ['Enter a valid URL.'], __all__: ['Bad regular expression: missing ): (foo'] });
  assert.deepEqual(await list(), []);

  for (const [pattern, url] of [
    ['ZUL-(?P<id>\\d+)', 'https://realm.com/my_realm_filter/#hashtag/%(id)s'],
    ['_code=(?P<id>[0-9a-zA-Z]+)', 'https://example.com/product/%(id)s/details'],
    ['!(?P<id>[0-9]+)', 'https://realm.com/index.pl?Action=AgentTicketZoom;TicketNumber=%(id)s'],
    ['ZUL-ESCAPE-(?P<id>\\d+)', 'https://realm.com/my_realm_filter/%%(ignored)s/%(id)s'],
    ['ZUL-URI-(?P<id>\\d+)', 'https://example.com/%ba/%(id)s'],
    ['(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)', 'https://github.com/%(org)s/%(repo)s/issue/%(id)s'],
  ]) {
    assert.equal(typeof assertOk(await add(admin, { pattern, url_format_string: url })).id, 'number', pattern);
  }
  await refused({ pattern: ' ZUL-(?P<id>\\d+) ', url_format_string: 'https://x.example.com/%(id)s' }, 'Realm filter with this Realm and Pattern already exists.');
  await clearAll();
});

test('a pattern of many kilobytes is stored and stays unique on either engine (no index-size 500)', async () => {
  // PostgreSQL's B-tree refuses entries over ~2.7 KB; the unique index is on the pattern's hash there.
  const pattern = `${Array.from({ length: 3000 }, (_, i) => `w${i}`).join('|')}(?P<id>[0-9]+)`;
  assert.ok(pattern.length > 10_000);
  const url = { [URL_PARAM]: TEMPLATES ? 'https://x.example.com/{id}' : 'https://x.example.com/%(id)s' };
  const id = assertOk(await add(admin, { pattern, ...url })).id;
  assert.ok((await list()).some((l: { id: number; pattern: string }) => l.id === id && l.pattern === pattern));
  const msg = 'Realm filter with this Realm and Pattern already exists.';
  assertError(await add(admin, { pattern, ...url }), msg, 'BAD_REQUEST', 400, { errors: { __all__: [msg] } });
  await clearAll();
});

test('list, update and delete; "Linkifier not found." for a missing one or another organization\'s', async () => {
  const id = assertOk(await add(admin, TRAC)).id as number;
  assert.deepEqual(await list(guest), [listed(TRAC.pattern, TRAC.url_format_string, 'https://trac.example.com/ticket/{id}', id)]);
  assert.deepEqual(assertOk(await t.api('GET', '/api/v1/realm/filters', { as: member })).filters, [[TRAC.pattern, TRAC.url_format_string, id]]);
  assert.deepEqual(assertOk(await t.api('GET', '/api/v1/realm/linkifiers', { as: acmeOwner, host: `acme.parley.test` })).linkifiers, []);

  const updated = { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://realm.com/my_realm_filter/issues/%(id)s' };
  assertOk(await t.api('PATCH', `/api/v1/realm/filters/${id}`, { as: admin, params: updated }));
  assert.deepEqual(await list(), [listed(updated.pattern, updated.url_format_string, 'https://realm.com/my_realm_filter/issues/{id}', id)]);
  // Its own pattern again is no duplicate.
  assertOk(await t.api('PATCH', `/api/v1/realm/filters/${id}`, { as: admin, params: updated }));

  const patch = (fid: number, params: Record<string, unknown>) => t.api('PATCH', `/api/v1/realm/filters/${fid}`, { as: admin, params });
  const r = await patch(id, { pattern: 'ZUL-(?P<id>\\d????)', url_format_string: TRAC.url_format_string });
  assertError(r, 'Bad regular expression: bad repetition operator: ????', 'BAD_REQUEST', 400, { errors: { __all__: ['Bad regular expression: bad repetition operator: ????'] } });
  // Django's full_clean compares the groups even when the URL was refused: both are listed.
  assertError(await patch(id, { pattern: 'ZUL-(?P<id>\\d+)', url_format_string: '$fgfg' }), 'Enter a valid URL.', 'BAD_REQUEST', 400,
    { errors: { url_format_string: ['Enter a valid URL.'], __all__: ["Group 'id' in linkifier pattern is not present in URL format string."] } });
  assertError(await patch(id + 1000, TRAC), 'Linkifier not found.');
  assertError(await patch(id, { pattern: TRAC.pattern }), `Missing '${URL_PARAM}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: URL_PARAM });

  const acmeId = assertOk(await t.api('POST', '/api/v1/realm/filters', { as: acmeOwner, host: 'acme.parley.test', params: TRAC })).id as number;
  assertError(await patch(acmeId, TRAC), 'Linkifier not found.');
  assertError(await t.api('DELETE', `/api/v1/realm/filters/${acmeId}`, { as: admin }), 'Linkifier not found.');
  assertError(await t.api('DELETE', `/api/v1/realm/filters/${id + 1000}`, { as: admin }), 'Linkifier not found.');
  assertOk(await t.api('DELETE', `/api/v1/realm/filters/${id}`, { as: t.owner }));
  assert.deepEqual(await list(), []);
});

test('every change tells every active user the whole list, as realm_linkifiers and the legacy realm_filters', async () => {
  log.clear();
  const id = assertOk(await add(admin, TRAC)).id as number;
  const everyone = sorted([t.owner.id, admin.id, member.id, guest.id, alice.id]);
  const current = log.one('realm_linkifiers');
  // Published with both forms (url_template null: made with a format string); each queue gets one.
  assert.deepEqual(current.event, { type: 'realm_linkifiers', realm_linkifiers: [{ pattern: TRAC.pattern, url_format: TRAC.url_format_string, url_template: null, id }] });
  assert.deepEqual(sorted(current.userIds), everyone);
  const legacy = log.one('realm_filters');
  assert.deepEqual(legacy.event, { type: 'realm_filters', realm_filters: [[TRAC.pattern, TRAC.url_format_string, id]] });
  assert.deepEqual(sorted(legacy.userIds), everyone);

  const reg = assertOk(await t.api('POST', '/api/v1/register', { as: member, params: { fetch_event_types: ['realm_linkifiers', 'realm_filters'] } }));
  // From level 176 a client without linkifier_url_template gets neither list (linkifier-templates.test.ts covers the capable one).
  assert.deepEqual(reg.realm_linkifiers, TEMPLATES ? [] : [{ pattern: TRAC.pattern, url_format: TRAC.url_format_string, id }]);
  assert.deepEqual(reg.realm_filters, TEMPLATES ? [] : [[TRAC.pattern, TRAC.url_format_string, id]]);

  log.clear();
  assertOk(await t.api('DELETE', `/api/v1/realm/filters/${id}`, { as: admin }));
  assert.deepEqual(log.one('realm_linkifiers').event, { type: 'realm_linkifiers', realm_linkifiers: [] });
  assert.deepEqual(log.one('realm_filters').event, { type: 'realm_filters', realm_filters: [] });
});

test('rendering: matches outside code and links become links; topics get topic_links; a change applies to the next read', async () => {
  await clearAll();
  const id = assertOk(await add(admin, TRAC)).id as number;
  assertOk(await add(admin, { pattern: '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)', url_format_string: 'https://github.com/%(org)s/%(repo)s/issues/%(id)s' }));
  const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;
  log.clear();
  const msgId = await sendMessage(t, alice, { type: 'stream', to: 'general', topic: 'fix #4567 and zulip/zulip#12, see example.com', content: 'fixes #1234, not a#1234 or `#1234` or [#99](https://x.com) or #1234z; zulip/zulip#123' });
  const sent = log.one('message').event as any;
  const content = `<p>fixes ${link('https://trac.example.com/ticket/1234', '#1234')}, not a#1234 or <code>#1234</code> or ${link('https://x.com', '#99')} or #1234z; ${link('https://github.com/zulip/zulip/issues/123', 'zulip/zulip#123')}</p>`;
  const topicLinks = [
    { text: '#4567', url: 'https://trac.example.com/ticket/4567' },
    { text: 'zulip/zulip#12', url: 'https://github.com/zulip/zulip/issues/12' },
    { text: 'example.com', url: 'https://example.com' },
  ];
  assert.equal(sent.message.content, content);
  assert.deepEqual(sent.message.topic_links, topicLinks);
  const read = async () => assertOk(await t.api('GET', `/api/v1/messages/${msgId}`, { as: member })).message;
  assert.deepEqual((await read()).topic_links, topicLinks);
  assert.equal((await read()).content, content);
  // The preview renders with them too.
  assert.equal(assertOk(await t.api('POST', '/api/v1/messages/render', { as: member, params: { content: 'see #42' } })).rendered,
    `<p>see ${link('https://trac.example.com/ticket/42', '#42')}</p>`);

  // Content keeps what it was rendered with; topic_links follow the linkifiers of now.
  assertOk(await t.api('PATCH', `/api/v1/realm/filters/${id}`, { as: admin, params: { pattern: '#(?P<id>[0-9]+)', url_format_string: 'https://bugs.example.com/%(id)s' } }));
  const after = await read();
  assert.equal(after.content, content);
  assert.deepEqual(after.topic_links[0], { text: '#4567', url: 'https://bugs.example.com/4567' });

  // A private message has no topic, so no topic links.
  log.clear();
  await sendMessage(t, alice, { type: 'private', to: JSON.stringify([member.id]), content: '#77' });
  const pm = (log.one('message').event as any).message;
  assert.deepEqual(pm.topic_links, []);
  assert.equal(pm.content, `<p>${link('https://bugs.example.com/77', '#77')}</p>`);

  // A topic edit's event carries the new topic's links.
  log.clear();
  assertOk(await t.api('PATCH', `/api/v1/messages/${msgId}`, { as: alice, params: { topic: 'now #88' } }));
  assert.deepEqual((log.one('update_message').event as any).topic_links, [{ text: '#88', url: 'https://bugs.example.com/88' }]);
  await clearAll();
});

test('a hostile pattern is refused or runs in linear time: sending stays fast', async () => {
  await clearAll();
  // Exponential in a backtracking engine on a run of "a"s without a "b"; linear in RE2.
  assertOk(await add(admin, { pattern: '(?P<id>(a+)+)b', url_format_string: 'https://x.example.com/%(id)s' }));
  assertOk(await add(admin, { pattern: '(?P<id>(a|aa)+)c', url_format_string: 'https://x.example.com/%(id)s' }));
  const started = performance.now();
  await sendMessage(t, alice, { type: 'stream', to: 'general', topic: `${'a'.repeat(50)}! b c`, content: `${'a'.repeat(9000)}! b c` });
  // A backtracking engine would not finish in this lifetime; RE2 takes milliseconds.
  assert.ok(performance.now() - started < scaledMs(10_000));
  await clearAll();
});

test("zulip-js's filters.retrieve gets the legacy list", async () => {
  const id = assertOk(await add(admin, TRAC)).id as number;
  const client: any = await zulip({ username: member.email, apiKey: member.apiKey, realm: await t.listen() });
  const r = await client.filters.retrieve();
  assert.deepEqual(r, { result: 'success', msg: '', filters: [[TRAC.pattern, TRAC.url_format_string, id]] });
  await clearAll();
});
