/**
 * Seeds the organization straight through Parley's actions, in the server's own process
 * before it listens (much faster than the API: no HTTP, no password hashing except for the
 * few sign-in users, and concurrent sends share group commits).
 */
import type { App } from '../../src/app.js';
import { transact } from '../../src/actions/transaction.js';
import { doCreateUser } from '../../src/actions/user-create.js';
import { createStreamWithSubscribers } from '../../src/actions/stream-create.js';
import { sendMessage } from '../../src/actions/message-send.js';
import type { RealmRow, UserRow } from '../../src/store/rows.js';
import { emailOf, history, membership, nameOf, passwordOf, streamNameOf, type SeedProgress, type Shape, type SimUser } from './shape.js';

export async function seedThroughActions(app: App, realm: RealmRow, shape: Shape, progress: (p: SeedProgress) => void): Promise<SimUser[]> {
  const rows: UserRow[] = [];
  const out: SimUser[] = [];
  for (let i = 0; i < shape.users; i += 50) {
    // Fifty users per transaction: one commit each instead of fifty.
    const batch = await transact(app.ctx, async (tx) => {
      const made: UserRow[] = [];
      for (let j = i; j < Math.min(shape.users, i + 50); j++) {
        made.push(await doCreateUser(tx, realm, { email: emailOf(shape, j), fullName: nameOf(j), password: passwordOf(shape, j) }));
      }
      return made;
    });
    for (const [k, u] of batch.entries()) {
      rows.push(u);
      const password = passwordOf(shape, i + k);
      out.push({ email: u.email, apiKey: u.api_key, ...(password ? { password } : {}) });
    }
    progress({ stage: 'users', done: rows.length, total: shape.users });
  }
  const members = membership(shape);
  for (let s = 0; s < shape.streams; s++) {
    await transact(app.ctx, (tx) => createStreamWithSubscribers(tx, realm, streamNameOf(s), members[s]!.map((i) => rows[i]!)));
    progress({ stage: 'streams', done: s + 1, total: shape.streams });
  }
  const total = shape.history * members.filter((m) => m.length > 0).length;
  let done = 0;
  let batch: Array<Promise<number>> = [];
  for (const [s, sender, topic, content] of history(shape, members)) {
    batch.push(sendMessage(app.ctx, realm, rows[sender]!, { to: { kind: 'stream', name: streamNameOf(s) }, topic, content, client: 'sim-seed' }));
    if (batch.length === 50) {
      await Promise.all(batch);
      done += batch.length;
      batch = [];
      progress({ stage: 'history', done, total });
    }
  }
  await Promise.all(batch);
  progress({ stage: 'history', done: total, total });
  return out;
}
