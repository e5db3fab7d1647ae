import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertError, assertOk, assertUnauthenticated } from '../helpers/assert.js';
import { EventLog } from '../helpers/events.js';
import { until } from '../helpers/until.js';
import { Role } from '../../src/lib/roles.js';

// DELETE /users/{user_id} `deactivation_notification_comment` (feature level 135): given,
// the deactivated user is mailed (after the commit), with the comment unless it is empty;
// absent, no mail; over 2000 characters, refused before anything happens.
let t: TestApp;
let log: EventLog;
let admin: TestUser;
let n = 0;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  log = new EventLog(t);
  admin = await t.createUser({ name: 'Ada Admin', role: Role.ADMINISTRATOR });
});
after(() => t.close());

function mailsTo(addr: string): string[] {
  const outbox = t.app.ctx.mail.outbox!;
  return (fs.existsSync(outbox) ? fs.readdirSync(outbox) : []).map((f) => fs.readFileSync(path.join(outbox, f), 'utf8'))
    .filter((m) => m.includes(`To: ${addr}`)).map((m) => m.replace(/=\r?\n/g, ''));
}
const someone = async () => t.createUser({ name: `Leaving Person ${++n}`, email: `leaving${n}@parley.test` });
const deactivate = (as: TestUser | null, id: number, params: Record<string, unknown> = {}) => t.api('DELETE', `/api/v1/users/${id}`, { as, params });

test('a comment: the user is deactivated and mailed the notice with it', async () => {
  const u = await someone();
  log.clear();
  assertOk(await deactivate(admin, u.id, { deactivation_notification_comment: '  Thanks for everything, see you.  ' }));
  // Feature level 222: deactivation is a realm_user update with is_active false.
  assert.deepEqual(log.one('realm_user', 'update', (e) => e.event.person.is_active === false).event.person, { user_id: u.id, is_active: false });
  const [mail] = await until(() => mailsTo(u.email).length > 0 && mailsTo(u.email), { message: 'the deactivation notice' });
  assert.match(mail!, /Subject: Notification of account deactivation on Parley Test/);
  assert.match(mail!, /has been deactivated, and you will no longer be able to log in\./);
  assert.match(mail!, /The administrators provided the following comment:\n\nThanks for everything, see you\.\n/);
});

test('an empty comment: the notice without a comment; none given: no mail', async () => {
  const u = await someone();
  assertOk(await deactivate(admin, u.id, { deactivation_notification_comment: '' }));
  const [mail] = await until(() => mailsTo(u.email).length > 0 && mailsTo(u.email), { message: 'the deactivation notice' });
  assert.match(mail!, /has been deactivated/);
  assert.doesNotMatch(mail!, /provided the following comment/);

  const quiet = await someone();
  const other = await someone();
  assertOk(await deactivate(admin, quiet.id));
  // A later mail to someone else has gone out, so the first would have too.
  assertOk(await deactivate(admin, other.id, { deactivation_notification_comment: 'x' }));
  await until(() => mailsTo(other.email).length > 0, { message: 'the later notice' });
  assert.deepEqual(mailsTo(quiet.email), []);
});

test('refusals: too long a comment, not an administrator, the only owner, unauthenticated; nothing mailed', async () => {
  const u = await someone();
  assertError(await deactivate(admin, u.id, { deactivation_notification_comment: 'y'.repeat(2001) }), 'deactivation_notification_comment is too long (limit: 2000 characters)');
  assertError(await deactivate(u, admin.id, { deactivation_notification_comment: 'bye' }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  assertError(await deactivate(t.owner, t.owner.id, { deactivation_notification_comment: 'bye' }), 'Cannot deactivate the only organization owner');
  assertUnauthenticated(await deactivate(null, u.id, { deactivation_notification_comment: 'bye' }));
  assertOk(await deactivate(admin, u.id, { deactivation_notification_comment: 'y'.repeat(2000) }));
  await until(() => mailsTo(u.email).length > 0, { message: 'the notice' });
  assert.equal(mailsTo(u.email).length, 1);
  assert.deepEqual(mailsTo(t.owner.email), []);
  assert.deepEqual(mailsTo(admin.email), []);
});
