/**
 * `npm run bench -- presence [rounds]`: the presence figures. An organization of
 * 10,000 users, every one of them seen in the last minutes, at feature level 277. Each
 * round ten other users report (not measured), then one client reports, measured:
 *
 *  - incremental: as the mobile app does, with `last_update_id` from its last answer;
 *  - full: the whole organization (`slim_presence`, no `last_update_id`), as before 263.
 *
 *  - ping_only: the report alone, which both pay (authentication, the write).
 *
 * Prints each answer's size and the server's CPU (process CPU time around the request,
 * through Fastify's inject: routing, authentication, the write and the answer) and, apart,
 * the CPU of building the answer alone. Targets: incremental under 5 KB and under a
 * twentieth of the full answer's CPU.
 */
import { startBenchApp } from './lib/bench-app.js';
import { writeAlone } from '../src/actions/transaction.js';
import { doUpdatePresence } from '../src/actions/presence-update.js';
import { presencesAnswer } from '../src/reads/presence.js';
import type { UserRow } from '../src/store/rows.js';

const USERS = 10_000;
const ROUNDS = Number(process.argv[2] ?? 200);

const bench = await startBenchApp('presence', { featureLevel: 277 });
const { app, realm } = bench;
const db = app.ctx.store.db;
const [client] = await bench.addUsers(1, 'client', 'Client');
const me = client!;
// The others (with the owner, 10,000 in all) copy the client's row: creating them through the action (streams,
// events, a group each) would take minutes and change nothing measured here.
const { id: _id, ...template } = me;
for (let i = 0; i < USERS - 2; i += 500) {
  const rows = [];
  for (let j = i; j < Math.min(i + 500, USERS - 2); j++) {
    const email = `p${j}@bench.test`;
    rows.push({ ...template, email, email_lower: email, delivery_email: email, full_name: `Person ${j}`, api_key: `key${j}`.padEnd(32, 'x') });
  }
  await db.insertInto('users').values(rows).execute();
}
const users = await db.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('is_bot', '=', 0).execute() as UserRow[];
const others = users.filter((u) => u.id !== me.id && u.is_active === 1);
// Everyone seen in the last 100 seconds, numbered 1..n as that many writes would have.
const now = Math.floor(Date.now() / 1000);
for (let i = 0; i < users.length; i += 500) {
  await db.insertInto('user_presence').values(users.slice(i, i + 500).map((u, k) => ({
    user_id: u.id, realm_id: realm.id, client: 'website', last_active_time: now - ((i + k) % 100), last_connected_time: now - ((i + k) % 100), last_update_id: i + k + 1,
  }))).execute();
}
process.stderr.write(`  ${users.length} users, ${users.length} presence rows\n`);

const authorization = 'Basic ' + Buffer.from(`${me.email}:${me.api_key}`).toString('base64');
const report = (params: string) => app.http.inject({
  method: 'POST', url: '/api/v1/users/me/presence', payload: `status=active&new_user_input=true&${params}`,
  headers: { host: '127.0.0.1', authorization, 'content-type': 'application/x-www-form-urlencoded' },
});
let next = 0;
const tenChanges = async () => {
  for (let i = 0; i < 10; i++) {
    const u = others[(next++ * 7919) % others.length]!;
    await writeAlone(app.ctx, (tx) => doUpdatePresence(tx, realm, u, 'active', 'website', Math.floor(Date.now() / 1000)));
  }
};

interface Figures { cpuUs: number[]; wallUs: number[]; bytes: number[]; users: number[] }
const figures = (): Figures => ({ cpuUs: [], wallUs: [], bytes: [], users: [] });
const cpuNow = () => { const c = process.cpuUsage(); return c.user + c.system; };

async function measure(label: string, params: () => string, after: (body: { presence_last_update_id: number; presences: object }) => void, f: Figures, rounds: number) {
  for (let r = 0; r < rounds; r++) {
    await tenChanges();
    const c0 = cpuNow();
    const t0 = performance.now();
    const res = await report(params());
    const wall = (performance.now() - t0) * 1000;
    const cpu = cpuNow() - c0;
    if (res.statusCode !== 200) throw new Error(`${label}: ${res.body}`);
    const body = res.json() as { presence_last_update_id: number; presences: object };
    after(body);
    f.cpuUs.push(cpu);
    f.wallUs.push(wall);
    f.bytes.push(res.rawPayload.length);
    f.users.push(Object.keys(body.presences ?? {}).length);
  }
}

let last = -1;
const incremental = figures();
const full = figures();
const ping = figures();
// Warm-up: the organization's rows loaded, every part made once, the JIT settled.
await measure('warm-up', () => 'slim_presence=true', () => {}, figures(), 20);
last = (await report('last_update_id=-1').then((r) => r.json() as { presence_last_update_id: number })).presence_last_update_id;
await measure('warm-up', () => `last_update_id=${last}`, (b) => { last = b.presence_last_update_id; }, figures(), 20);
// Alternating blocks, so that a burst of other load on the machine hits both.
for (let block = 0; block < 4; block++) {
  await measure('full', () => 'slim_presence=true', () => {}, full, ROUNDS / 4);
  // The client's last answer was a block ago: caught up, unmeasured, as its next report would.
  last = (await report(`last_update_id=${last}`).then((r) => r.json() as { presence_last_update_id: number })).presence_last_update_id;
  await measure('incremental', () => `last_update_id=${last}`, (b) => { last = b.presence_last_update_id; }, incremental, ROUNDS / 4);
  await measure('ping_only', () => 'ping_only=true', () => {}, ping, ROUNDS / 4);
}

// The answer alone, without the request around it.
async function answerCpu(lastUpdateId: number | undefined, n: number): Promise<number> {
  const c0 = cpuNow();
  for (let i = 0; i < n; i++) await presencesAnswer(db, realm, { slim: true, level: 277, lastUpdateId }, Math.floor(Date.now() / 1000));
  return (cpuNow() - c0) / n;
}
await tenChanges();
const answerFull = await answerCpu(undefined, 200);
const answerIncremental = await answerCpu(last, 200);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const line = (label: string, f: Figures) =>
  `${label.padEnd(12)} ${String(Math.round(median(f.users))).padStart(6)} users  ${(median(f.bytes) / 1024).toFixed(1).padStart(7)} KB  `
  + `CPU median ${(median(f.cpuUs) / 1000).toFixed(3)} ms, mean ${(mean(f.cpuUs) / 1000).toFixed(3)} ms  wall median ${(median(f.wallUs) / 1000).toFixed(3)} ms`;
process.stdout.write(`POST /users/me/presence, ${users.length} users, 10 changes between a client's reports, ${ROUNDS} reports each (feature level 277)\n`);
process.stdout.write(`${line('full', full)}\n${line('incremental', incremental)}\n${line('ping_only', ping)}\n`);
process.stdout.write(`incremental answer: max ${Math.max(...incremental.bytes)} bytes (target < 5 KB); `
  + `request CPU ${(median(incremental.cpuUs) / median(full.cpuUs) * 100).toFixed(1)}% of the full one's by median (target < 5%); `
  + `beyond the report itself (ping_only): ${((median(incremental.cpuUs) - median(ping.cpuUs)) / (median(full.cpuUs) - median(ping.cpuUs)) * 100).toFixed(1)}%\n`);
process.stdout.write(`building the answer alone: full ${(answerFull / 1000).toFixed(3)} ms, incremental ${(answerIncremental / 1000).toFixed(4)} ms `
  + `(${(answerIncremental / answerFull * 100).toFixed(2)}%)\n`);
await bench.close();
