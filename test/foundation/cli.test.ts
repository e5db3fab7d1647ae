import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { ENGINE, basic } from '../helpers/app.js';

// The admin commands are exercised on SQLite: they share the store code the suite tests on both engines.
const skip = ENGINE !== 'sqlite';

function parley(dataDir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--data-dir', dataDir], {
    env: { ...process.env, PARLEY_ADMIN_EMAIL: 'root@parley.test', PARLEY_ADMIN_PASSWORD: 'root-password-1' }, encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('org, user, bot and api-key commands write what the HTTP API then serves', { skip, timeout: 120_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const user = parley(dir, 'user', 'create', '--email', 'alice@parley.test', '--full-name', 'Alice Liddell', '--role', 'admin');
  assert.equal(user.code, 0, user.err);
  const alice = JSON.parse(user.out);
  assert.equal(alice.email, 'alice@parley.test');
  assert.equal(typeof alice.user_id, 'number');
  assert.match(alice.api_key, /^[A-Za-z0-9]{32}$/);

  const org = parley(dir, 'org', 'create', '--string-id', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test', '--owner-password', 'pw-123456');
  assert.equal(org.code, 0, org.err);
  const acme = JSON.parse(org.out);
  assert.equal(acme.string_id, 'acme');
  assert.equal(acme.owner.email, 'boss@acme.test');
  assert.equal(acme.owner.password, undefined, 'a given password is never echoed');

  const bot = parley(dir, 'bot', 'create', '--owner', 'alice@parley.test', '--full-name', 'Helper', '--short-name', 'helper');
  assert.equal(bot.code, 0, bot.err);
  const helper = JSON.parse(bot.out);
  assert.match(helper.email, /^helper-bot@/);

  const shown = JSON.parse(parley(dir, 'api-key', 'show', '--email', 'alice@parley.test').out);
  assert.equal(shown.api_key, alice.api_key);
  const regenerated = JSON.parse(parley(dir, 'api-key', 'regenerate', '--email', 'alice@parley.test').out);
  assert.notEqual(regenerated.api_key, alice.api_key);

  const missing = parley(dir, 'api-key', 'show', '--email', 'nobody@parley.test');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /No user 'nobody@parley.test'/);
  const badRole = parley(dir, 'user', 'create', '--email', 'x@parley.test', '--full-name', 'X', '--role', 'king');
  assert.equal(badRole.code, 1);
  assert.match(badRole.err, /Unknown role 'king'/);
  const duplicate = parley(dir, 'user', 'create', '--email', 'alice@parley.test', '--full-name', 'Alice Again');
  assert.equal(duplicate.code, 1);
  assert.match(duplicate.err, /Email 'alice@parley.test' already in use/);

  const granted = parley(dir, 'user', 'special-permission', '--email', 'alice@parley.test', '--permission', 'can_change_user_emails');
  assert.equal(granted.code, 0, granted.err);
  assert.equal(JSON.parse(granted.out).can_change_user_emails, true);
  const unknown = parley(dir, 'user', 'special-permission', '--email', 'alice@parley.test', '--permission', 'can_fly');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /Unknown special permission 'can_fly'/);

  const app = await buildApp({ dataDir: dir, logLevel: 'silent' });
  try {
    const headers = { authorization: basic('alice@parley.test', regenerated.api_key), host: '127.0.0.1:9991' };
    // Level 313: the permission lets an administrator change another's address at once.
    const form = (o: Record<string, string>) => ({ ...headers, 'content-type': 'application/x-www-form-urlencoded' , ...o });
    const bob = await app.http.inject({ method: 'POST', url: '/api/v1/users', headers: form({}), payload: 'email=bob%40parley.test&password=bob-pw-12345&full_name=Bob' });
    assert.equal(bob.statusCode, 200, bob.body);
    const changed = await app.http.inject({ method: 'PATCH', url: `/api/v1/users/${bob.json().user_id}`, headers: form({}), payload: 'new_email=robert%40parley.test' });
    assert.equal(changed.statusCode, 200, changed.body);
    const seen = await app.http.inject({ method: 'GET', url: `/api/v1/users/${bob.json().user_id}`, headers });
    assert.equal(seen.json().user.delivery_email, 'robert@parley.test');
    const me = await app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().is_admin, true);
    const old = await app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers: { ...headers, authorization: basic('alice@parley.test', alice.api_key) } });
    assert.equal(old.statusCode, 401, 'the regenerated key replaces the old one');
    const botMe = await app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers: { ...headers, authorization: basic(helper.email, helper.api_key) } });
    assert.equal(botMe.json().bot_owner_id, alice.user_id);
    const acmeMe = await app.http.inject({ method: 'GET', url: '/api/v1/users/me', headers: { host: 'acme.127.0.0.1:9991', authorization: basic('boss@acme.test', acme.owner.api_key) } });
    assert.equal(acmeMe.json().is_owner, true);
  } finally {
    await app.close();
  }
});

test('bot create makes outgoing webhook bots with --payload-url and --interface, and prints the key', { skip, timeout: 120_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-bot-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const alice = JSON.parse(parley(dir, 'user', 'create', '--email', 'alice@parley.test', '--full-name', 'Alice Liddell').out);
  const made = parley(dir, 'bot', 'create', '--owner', 'alice@parley.test', '--full-name', 'Hooky', '--short-name', 'hooky',
    '--bot-type', '3', '--payload-url', 'http://localhost:9/hook', '--interface', '2');
  assert.equal(made.code, 0, made.err);
  const hooky = JSON.parse(made.out);
  assert.match(hooky.api_key, /^[A-Za-z0-9]{32}$/);
  assert.deepEqual({ ...hooky, user_id: 0, api_key: '' }, { user_id: 0, email: hooky.email, api_key: '', bot_type: 3, payload_url: 'http://localhost:9/hook', interface: 2 });
  const refusals: Array<[string[], RegExp]> = [
    [['--bot-type', '3'], /An outgoing webhook bot needs --payload-url/],
    [['--bot-type', '3', '--payload-url', 'not a url'], /'not a url' is not a URL/],
    [['--bot-type', '3', '--payload-url', 'http://localhost/x', '--interface', '7'], /Invalid interface type/],
    [['--payload-url', 'http://localhost/x'], /--payload-url is for outgoing webhook bots/],
  ];
  for (const [extra, message] of refusals) {
    const r = parley(dir, 'bot', 'create', '--owner', 'alice@parley.test', '--full-name', 'Refused', '--short-name', 'refused', ...extra);
    assert.equal(r.code, 1, extra.join(' '));
    assert.match(r.err, message);
  }
  const app = await buildApp({ dataDir: dir, logLevel: 'silent' });
  try {
    const reg = await app.http.inject({ method: 'POST', url: '/api/v1/register', payload: 'fetch_event_types=["realm_bot"]',
      headers: { authorization: basic('alice@parley.test', alice.api_key), host: '127.0.0.1:9991', 'content-type': 'application/x-www-form-urlencoded' } });
    const bot = reg.json().realm_bots.find((b: { user_id: number }) => b.user_id === hooky.user_id);
    assert.equal(bot.services[0].base_url, 'http://localhost:9/hook');
    assert.equal(bot.services[0].interface, 2);
    assert.equal(bot.api_key, hooky.api_key);
  } finally {
    await app.close();
  }
});

test('demo fills an organization with users, streams and messages that the API then serves', { skip, timeout: 120_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = parley(dir, 'demo', '--users', '6', '--messages', '40');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Demo ready: 6 users, 6 streams, 40 messages\./);
  const again = parley(dir, 'demo', '--users', '6', '--messages', '10');
  assert.equal(again.code, 0, again.err);
  const app = await buildApp({ dataDir: dir, logLevel: 'silent' });
  try {
    const key = (await app.ctx.store.db.selectFrom('users').select('api_key').where('email', '=', 'demo1@127.0.0.1').executeTakeFirstOrThrow()).api_key;
    const res = await app.http.inject({ method: 'GET', url: '/api/v1/messages?anchor=newest&num_before=100&num_after=0', headers: { authorization: basic('demo1@127.0.0.1', key), host: '127.0.0.1:9991' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.json().messages.length > 0);
    const users = await app.ctx.store.db.selectFrom('users').select('email').where('email', 'like', 'demo%').execute();
    assert.equal(users.length, 6, 're-running reuses the demo users');
  } finally {
    await app.close();
  }
});
