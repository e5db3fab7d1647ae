import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ENGINE } from '../helpers/app.js';
import { cli, newStore, ownerAuth, runCli, startOn, storeArgs } from '../helpers/backup.js';
import { until } from '../helpers/until.js';

/**
 * A backup taken under load: a real server process takes sends from several clients while
 * `parley backup` runs. Every send acknowledged before the backup started must be in the
 * backup, whether the server keeps running or is killed (SIGKILL) while the backup copies.
 * The backup restores into an empty store, and a server starts on it and reads them back.
 */
for (const variant of ['serving', 'killed'] as const) {
  test(`backup under load on ${ENGINE}, server ${variant} during the backup: every message acknowledged before it is restored`, { timeout: 240_000 }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-backup-load-'));
    const source = await newStore();
    const server = await startOn(source);
    const { authorization, userId } = await ownerAuth(server.url);
    const acked = new Map<number, string>();
    let stopping = false;
    let failures = 0;
    let killSent = false;
    const sender = async (w: number): Promise<void> => {
      for (let i = 0; !stopping; i++) {
        const content = `load ${w}-${i}`;
        try {
          const res = await fetch(`${server.url}/api/v1/messages`, {
            method: 'POST', headers: { authorization },
            body: new URLSearchParams({ type: 'private', to: JSON.stringify([userId]), content }),
          });
          if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
          acked.set(((await res.json()) as { id: number }).id, content);
        } catch (err) {
          // Only the kill may interrupt a send: an answer that never came acknowledged nothing.
          if (!killSent) throw err;
          failures++;
          return;
        }
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    const archive = path.join(out, 'under-load.tar.gz');
    try {
      await until(() => acked.size >= 200, { timeoutMs: 60_000, message: () => `200 acknowledged sends (have ${acked.size})` });
      // Acknowledged before the backup process exists: committed before it could open anything.
      const before = new Map(acked);
      let killedWhileRunning: boolean | undefined;
      const backup = runCli(['backup', ...storeArgs(source), archive], (stderr) => {
        // The first progress line: the copy has begun. Kill the server then.
        if (variant === 'killed' && killedWhileRunning === undefined && stderr.includes('database')) {
          killedWhileRunning = !backup.exited();
          killSent = true;
          server.child.kill('SIGKILL');
        }
      });
      const made = await backup.done;
      assert.equal(made.code, 0, made.stderr);
      if (variant === 'killed') assert.equal(killedWhileRunning, true, 'the server was killed while the backup ran');
      const during = acked.size - before.size;
      stopping = true;
      await Promise.all(senders);
      if (variant === 'serving') assert.ok(during > 0, 'sends went on while the backup ran');
      else assert.ok(failures > 0, 'the kill cut the senders off');

      const target = await newStore();
      const restored = await cli(['restore', ...storeArgs(target), archive]);
      assert.equal(restored.code, 0, restored.stderr);
      if (ENGINE === 'sqlite') {
        const db = new Database(path.join(target.dataDir, 'parley.db'), { readonly: true });
        try {
          assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        } finally {
          db.close();
        }
      }
      const second = await startOn(target);
      try {
        const owner = await ownerAuth(second.url);
        const seen = new Map<number, string>();
        let anchor = '0';
        for (;;) {
          const q = new URLSearchParams({ anchor, include_anchor: 'false', num_before: '0', num_after: '1000', narrow: '[]', apply_markdown: 'false' });
          const page = (await (await fetch(`${second.url}/api/v1/messages?${q}`, { headers: { authorization: owner.authorization } })).json()) as { messages: Array<{ id: number; content: string }>; found_newest: boolean };
          for (const m of page.messages) seen.set(m.id, m.content);
          if (page.found_newest || page.messages.length === 0) break;
          anchor = String(page.messages.at(-1)!.id);
        }
        const missing = [...before].filter(([id, content]) => seen.get(id) !== content);
        assert.deepEqual(missing, [], `${missing.length} of ${before.size} messages acknowledged before the backup are not in it`);
        // And nothing in it that no one sent: every load message it holds was acknowledged or in flight.
        const loadMessages = [...seen.values()].filter((c) => c.startsWith('load '));
        assert.ok(loadMessages.length >= before.size);
      } finally {
        await second.stop();
      }
    } finally {
      stopping = true;
      await Promise.allSettled(senders);
      if (variant === 'killed') await server.kill();
      else await server.stop();
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
}
