import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { createMailer } from '../../src/mail/mailer.js';
import { ENGINE, createPgDatabase } from '../helpers/app.js';

/**
 * Issue 22: the data directory was created 0755 and the database, the saved event queues
 * and the mail outbox 0644 (plaintext API keys readable by every local user), and a corrupt
 * queue snapshot was ignored without a word.
 */
const mode = (f: string) => fs.statSync(f).mode & 0o777;
const octal = (m: number) => m.toString(8);

async function start(dataDir: string, log?: pino.Logger) {
  const databaseUrl = ENGINE === 'postgres' ? await createPgDatabase() : undefined;
  return buildApp({ dataDir, databaseUrl, logLevel: 'silent', externalUrl: 'http://parley.test' }, log ? { log } : {});
}

function capturingLogger(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  let text = '';
  const sink = new Writable({ write(chunk, _enc, cb) { text += String(chunk); cb(); } });
  return { log: pino({ level: 'warn' }, sink), lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('a new data directory is 0700; the database and its -wal/-shm files and the queue snapshot are 0600', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rest-'));
  const dataDir = path.join(root, 'data');
  const app = await start(dataDir);
  try {
    assert.equal(octal(mode(dataDir)), '700');
    if (ENGINE === 'sqlite') {
      // The migrations have written through the WAL: -wal and -shm exist while the store is open.
      assert.ok(fs.existsSync(path.join(dataDir, 'parley.db-wal')));
      for (const f of ['parley.db', 'parley.db-wal', 'parley.db-shm']) {
        const p = path.join(dataDir, f);
        if (fs.existsSync(p)) assert.equal(octal(mode(p)), '600', f);
        else assert.notEqual(f, 'parley.db', 'the database file exists');
      }
    }
  } finally {
    await app.close();
  }
  assert.equal(octal(mode(path.join(dataDir, 'event-queues.json'))), '600');
  fs.rmSync(root, { recursive: true, force: true });
});

test('files left readable by an earlier version are made private at start', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rest-'));
  const first = await start(dataDir);
  await first.close();
  fs.chmodSync(dataDir, 0o755);
  const files = ['parley.db', 'parley.db-wal', 'parley.db-shm', 'event-queues.json'].map((f) => path.join(dataDir, f)).filter((f) => fs.existsSync(f));
  for (const f of files) fs.chmodSync(f, 0o644);
  const second = await start(dataDir);
  try {
    assert.equal(octal(mode(dataDir)), '700');
    for (const f of files.filter((x) => fs.existsSync(x))) assert.equal(octal(mode(f)), '600', f);
  } finally {
    await second.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('mail written to the outbox is private (it holds confirmation links)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rest-'));
  const outbox = path.join(dir, 'outbox');
  const mailer = createMailer({ smtpUrl: undefined, from: 'Parley <noreply@parley.test>', outboxDir: outbox }, pino({ level: 'silent' }));
  await mailer.send({ to: 'someone@parley.test', subject: 'Confirm', text: 'https://parley.test/accounts/confirm/secret' });
  assert.equal(octal(mode(outbox)), '700');
  const [file] = fs.readdirSync(outbox);
  assert.equal(octal(mode(path.join(outbox, file!))), '600');
  fs.rmSync(dir, { recursive: true, force: true });
});

for (const [what, content] of [['not JSON', '{"queues": [ truncated'], ['JSON of another shape', '{"queues": [{"id": 1}]}']] as const) {
  test(`a queue snapshot that is ${what}: a warning naming the file, the file moved aside, the server starts`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rest-'));
    const snapshot = path.join(dataDir, 'event-queues.json');
    fs.writeFileSync(snapshot, content);
    const { log, lines } = capturingLogger();
    const app = await start(dataDir, log);
    try {
      const warning = lines().find((l) => l.level === 40 && l.file === snapshot);
      assert.ok(warning, JSON.stringify(lines()));
      assert.ok(String(warning.msg).includes(snapshot));
      const aside = fs.readdirSync(dataDir).filter((f) => f.startsWith('event-queues.json.corrupt-'));
      assert.equal(aside.length, 1);
      assert.equal(warning.movedTo, path.join(dataDir, aside[0]!));
      assert.equal(fs.readFileSync(path.join(dataDir, aside[0]!), 'utf8'), content, 'kept as it was, for a look');
      assert.ok(!fs.existsSync(snapshot) || fs.readFileSync(snapshot, 'utf8') !== content);
      // It answers (no organization exists in this bare data directory: Zulip's 404 for that).
      const res = await app.http.inject({ method: 'GET', url: '/api/v1/server_settings', headers: { host: 'parley.test' } });
      assert.equal(res.json().code, 'NONEXISTENT_SUBDOMAIN');
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test('an unreadable queue snapshot (a directory in its place) is logged, not ignored', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-rest-'));
  const snapshot = path.join(dataDir, 'event-queues.json');
  fs.mkdirSync(snapshot);
  const { log, lines } = capturingLogger();
  const app = await start(dataDir, log);
  try {
    assert.ok(lines().some((l) => l.level === 40 && l.file === snapshot), JSON.stringify(lines()));
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
