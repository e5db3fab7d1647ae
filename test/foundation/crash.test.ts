import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/pg.js';
import { ENGINE, createPgDatabase } from '../helpers/app.js';

/**
 * kill -9 under load: a server in its own process takes a steady stream of sends from
 * several clients and is killed with SIGKILL in the middle of it, with no chance to flush
 * or close anything. Restarted on the same data (the SQLite file, or the PostgreSQL
 * database), every message that was acknowledged (a 200 with its id) reads back with its
 * content. Runs on each engine the suite runs on.
 */
const EMAIL = 'crash@parley.test';
const PASSWORD = 'crash-password-1';

function start(dataDir: string, port: number, databaseUrl: string | undefined): { child: ChildProcess; ready: Promise<void>; out: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: {
      ...process.env, PARLEY_LOG_LEVEL: 'info', PARLEY_ADMIN_EMAIL: EMAIL, PARLEY_ADMIN_PASSWORD: PASSWORD,
      PARLEY_EXTERNAL_URL: `http://127.0.0.1:${port}`, PARLEY_DATABASE_URL: databaseUrl ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    let listening = false;
    const onData = (d: Buffer) => {
      // Kept until the server is up (it logs every request at info after that).
      if (listening) return;
      out += d.toString();
      if (out.includes('Parley listening')) {
        listening = true;
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code, signal) => reject(new Error(`exited ${code ?? signal}: ${out}`)));
  });
  ready.catch(() => {});
  return { child, ready, out: () => out };
}

test(`kill -9 mid-load on ${ENGINE}: after a restart every acknowledged message reads back`, { timeout: 180_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-crash-'));
  const databaseUrl = ENGINE === 'postgres' ? await createPgDatabase() : undefined;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const first = start(dataDir, port, databaseUrl);
  await first.ready;
  const keyRes = await fetch(`${base}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: EMAIL, password: PASSWORD }) });
  const { api_key: apiKey, user_id: userId } = (await keyRes.json()) as { api_key: string; user_id: number };
  const auth = { authorization: 'Basic ' + Buffer.from(`${EMAIL}:${apiKey}`).toString('base64') };

  const acked = new Map<number, string>();
  let stop = false;
  // Settles once enough sends are acknowledged (or one failed): the moment to kill.
  let reached!: () => void;
  const enough = new Promise<void>((r) => { reached = r; });
  let failedAfterKill = 0;
  const sender = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const content = `crash test ${w}-${i}`;
      try {
        const res = await fetch(`${base}/messages`, {
          method: 'POST', headers: auth,
          body: new URLSearchParams({ type: 'private', to: JSON.stringify([userId]), content }),
        });
        if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
        const { id } = (await res.json()) as { id: number };
        acked.set(id, content);
        if (acked.size >= 150) reached();
      } catch (err) {
        // Only the kill may interrupt a send; an answer that never came was not an acknowledgement.
        if (!stop) throw err;
        failedAfterKill++;
      }
    }
  };
  const senders = Array.from({ length: 8 }, (_, w) => sender(w));
  let failure: unknown;
  for (const s of senders) {
    s.catch((err: unknown) => {
      failure ??= err;
      reached();
    });
  }
  // Mid-load: once a good number of sends have been acknowledged and more are in flight.
  await enough;
  if (failure !== undefined) {
    first.child.kill('SIGKILL');
    throw failure;
  }
  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  stop = true;
  await exited;
  await Promise.all(senders);
  assert.ok(acked.size >= 150);

  const second = start(dataDir, port, databaseUrl);
  await second.ready;
  try {
    const q = new URLSearchParams({ anchor: 'newest', num_before: '5000', num_after: '0', narrow: JSON.stringify([{ operator: 'pm-with', operand: [userId] }]), apply_markdown: 'false' });
    const res = await fetch(`${base}/messages?${q}`, { headers: auth });
    assert.equal(res.status, 200, await res.clone().text());
    const stored = new Map(((await res.json()) as { messages: Array<{ id: number; content: string }> }).messages.map((m) => [m.id, m.content]));
    const missing = [...acked].filter(([id, content]) => stored.get(id) !== content);
    assert.deepEqual(missing, [], `${missing.length} of ${acked.size} acknowledged messages lost (${failedAfterKill} sends cut by the kill)`);
    // The restarted server takes writes as before.
    const after = await fetch(`${base}/messages`, { method: 'POST', headers: auth, body: new URLSearchParams({ type: 'private', to: JSON.stringify([userId]), content: 'after the crash' }) });
    assert.equal(after.status, 200);
  } finally {
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
