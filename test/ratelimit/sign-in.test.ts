/**
 * Failed sign-ins (POST /fetch_api_key) are limited per account and per source address,
 * and password hashes are Argon2id, older ones replaced at the next good sign-in.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, OWNER_EMAIL, OWNER_PASSWORD, type ApiResult, type TestApp, type TestUser } from '../helpers/app.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { hashPassword, legacyScryptHash, setPasswordHashCost } from '../../src/lib/secrets.js';
import { users } from '../../src/store/repos/users.js';

const apps: TestApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function limitedApp(spec = ''): Promise<TestApp> {
  const t = await testApp({ rateLimiting: true, rateLimits: parseRateLimitRules(spec) });
  apps.push(t);
  return t;
}

const signIn = (t: TestApp, username: string, password: string, remoteAddress = '127.0.0.1'): Promise<ApiResult> =>
  t.api('POST', '/api/v1/fetch_api_key', { as: null, params: { username, password }, remoteAddress });

function assertFailed(r: ApiResult): void {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
}

function assertRateLimited(r: ApiResult, windowSecs: number): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.code, 'RATE_LIMIT_HIT');
  assert.equal(r.body.msg, 'API usage exceeded rate limit');
  assert.ok(r.body['retry-after'] > 0 && r.body['retry-after'] <= windowSecs, String(r.body['retry-after']));
  assert.equal(String(r.headers?.['retry-after']), String(r.body['retry-after']));
}

const storedHash = async (t: TestApp, u: { id: number }) => (await users.findById(t.app.ctx.store.db, u.id))!.password_hash!;

test('five failures lock an account for 30 minutes, from any address, the right password too', async () => {
  const t = await limitedApp('authenticate_by_ip=1800:100');
  const u = await t.createUser({ password: 'right-password-1' });
  for (let i = 0; i < 5; i++) assertFailed(await signIn(t, u.email, 'wrong', `10.0.0.${i + 1}`));
  assertRateLimited(await signIn(t, u.email, 'right-password-1', '10.9.9.9'), 1800);
  // The email's case does not make another account.
  assertRateLimited(await signIn(t, u.email.toUpperCase(), 'right-password-1'), 1800);
  // Other accounts are not held back.
  assert.equal((await signIn(t, OWNER_EMAIL, OWNER_PASSWORD, '10.0.0.1')).status, 200);
});

test('successes do not count against an account', async () => {
  const t = await limitedApp();
  const u = await t.createUser({ password: 'right-password-1' });
  for (let i = 0; i < 8; i++) assert.equal((await signIn(t, u.email, 'right-password-1')).status, 200);
  for (let i = 0; i < 5; i++) assertFailed(await signIn(t, u.email, 'wrong'));
  assertRateLimited(await signIn(t, u.email, 'right-password-1'), 1800);
});

test('one address trying one password across many accounts is stopped at its budget', async () => {
  const t = await limitedApp('authenticate_by_ip=1800:4');
  const people: TestUser[] = [];
  for (let i = 0; i < 6; i++) people.push(await t.createUser({ password: `password-of-${i}` }));
  for (let i = 0; i < 4; i++) assertFailed(await signIn(t, people[i]!.email, 'Summer2024!', '203.0.113.5'));
  // Each account has failed once only, yet the address is done: a fresh account, and even
  // an unknown one, answers 429; so does a right password from there.
  assertRateLimited(await signIn(t, people[4]!.email, 'Summer2024!', '203.0.113.5'), 1800);
  assertRateLimited(await signIn(t, 'nobody@parley.test', 'Summer2024!', '203.0.113.5'), 1800);
  assertRateLimited(await signIn(t, people[5]!.email, 'password-of-5', '203.0.113.5'), 1800);
  // Another address signs in.
  assert.equal((await signIn(t, people[5]!.email, 'password-of-5', '198.51.100.7')).status, 200);
});

test('parallel guesses from one address cannot all slip past the budget', async () => {
  const t = await limitedApp('authenticate_by_ip=1800:3');
  const people: TestUser[] = [];
  for (let i = 0; i < 12; i++) people.push(await t.createUser({ password: `password-of-${i}` }));
  const answers = await Promise.all(people.map((p) => signIn(t, p.email, 'guess', '203.0.113.9')));
  const failed = answers.filter((r) => r.status === 401).length;
  const limited = answers.filter((r) => r.status === 429).length;
  assert.equal(failed + limited, people.length);
  assert.ok(failed <= 3, `${failed} guesses were checked`);
});

test('sign-in limits off by config: failures never lock', async () => {
  const t = await testApp();
  apps.push(t);
  const u = await t.createUser({ password: 'right-password-1' });
  for (let i = 0; i < 8; i++) assertFailed(await signIn(t, u.email, 'wrong'));
  assert.equal((await signIn(t, u.email, 'right-password-1')).status, 200);
});

test('passwords are stored as Argon2id at OWASP\'s cost (19 MiB, 2 passes, 1 lane)', async () => {
  const t = await limitedApp();
  const u = await t.createUser({ password: 'right-password-1' });
  const hash = await storedHash(t, u);
  assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal((await signIn(t, u.email, 'right-password-1')).status, 200);
  assert.equal(await storedHash(t, u), hash, 'a current hash is left alone');
  // A password change hashes the same way.
  const r = await t.api('PATCH', '/api/v1/settings', { as: u, params: { old_password: 'right-password-1', new_password: 'next-password-2' } });
  assert.equal(r.status, 200);
  assert.match(await storedHash(t, u), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
});

test('an old scrypt hash still signs in and is replaced by Argon2id; a wrong password changes nothing', async () => {
  const t = await limitedApp();
  const u = await t.createUser();
  const old = await legacyScryptHash('old-password-1');
  await users.update(t.app.ctx.store.db, u.id, { password_hash: old });
  assertFailed(await signIn(t, u.email, 'not-it'));
  assert.equal(await storedHash(t, u), old);
  const r = await signIn(t, u.email, 'old-password-1');
  assert.equal(r.status, 200);
  assert.equal(r.body.api_key, u.apiKey);
  const upgraded = await storedHash(t, u);
  assert.match(upgraded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal((await signIn(t, u.email, 'old-password-1')).status, 200, 'the new hash holds the same password');
  assert.equal(await storedHash(t, u), upgraded);
});

test('an Argon2id hash below today\'s cost is raised at sign-in', async () => {
  const t = await limitedApp();
  const u = await t.createUser();
  setPasswordHashCost({ memoryKib: 1024, timeCost: 1 });
  let cheap: string;
  try {
    cheap = await hashPassword('cheap-password-1');
  } finally {
    setPasswordHashCost({ memoryKib: 19_456, timeCost: 2 });
  }
  assert.match(cheap, /m=1024,t=1,p=1/);
  await users.update(t.app.ctx.store.db, u.id, { password_hash: cheap });
  assert.equal((await signIn(t, u.email, 'cheap-password-1')).status, 200);
  assert.match(await storedHash(t, u), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
});
