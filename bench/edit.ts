/**
 * `npm run bench -- edit [seconds]`: message edits on SQLite, the server in its own process.
 *  - PATCH /messages/{id} content edits of messages with 100 recipients, 16 concurrent editors;
 *  - how soon a parked poll hears of an edit, beside how soon it hears of a send;
 *  - moving a topic of 10,000 messages with change_all: renaming it, then to another stream.
 */
import { runLoad, printStats } from './lib/http-load.js';
import { reportToParent, startChild } from './lib/child.js';

const EDITORS = 16;
const TOPIC_SIZE = Number(process.env.BENCH_TOPIC_SIZE ?? 10_000);

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { sendMessage } = await import('../src/actions/message-send.js');
  const bench = await startBenchApp('edit');
  const users = await bench.addUsers(100, 'u', 'Edit User');
  await bench.addStream('subs100', users);
  await bench.addStream('bulk', users.slice(0, 10));
  const elsewhere = await bench.addStream('elsewhere', users.slice(0, 10));
  const { app, realm } = bench;
  const targets: number[] = [];
  for (const u of users.slice(0, EDITORS)) {
    targets.push(await sendMessage(app.ctx, realm, u, { to: { kind: 'stream', name: 'subs100' }, topic: 'edits', content: 'original', client: 'bench' }));
  }
  const big: number[] = [];
  for (let i = 0; i < TOPIC_SIZE; i += 64) {
    big.push(...await Promise.all(Array.from({ length: Math.min(64, TOPIC_SIZE - i) }, (_, j) =>
      sendMessage(app.ctx, realm, users[j % 10]!, { to: { kind: 'stream', name: 'bulk' }, topic: 'big topic', content: `bulk ${i + j}`, client: 'bench' }))));
    if (i % 2048 === 0) process.stderr.write(`  ${i}/${TOPIC_SIZE} messages in the topic to move\r`);
  }
  process.stderr.write('\n');
  const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
  reportToParent(bench, {
    base, targets, bigFirst: Math.min(...big), elsewhere: elsewhere.id, owner: { email: bench.owner.email, key: bench.owner.api_key },
    users: users.slice(0, EDITORS + 1).map((u) => ({ email: u.email, key: u.api_key })),
  });
} else {
  const seconds = Number(process.argv[2] ?? 8);
  const { child, setup: info } = await startChild<{
    base: string; targets: number[]; bigFirst: number; elsewhere: number; owner: { email: string; key: string }; users: Array<{ email: string; key: string }>;
  }>(import.meta.filename);
  const authOf = (u: { email: string; key: string }) => 'Basic ' + Buffer.from(`${u.email}:${u.key}`).toString('base64');
  const auth = info.users.map(authOf);
  const call = async (method: string, path: string, who: string, params: Record<string, string> = {}) => {
    const body = new URLSearchParams(params).toString();
    const url = method === 'GET' ? `${info.base}${path}?${body}` : `${info.base}${path}`;
    const res = await fetch(url, { method, headers: { authorization: who, ...(method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) }, ...(method === 'GET' ? {} : { body }) });
    const json = await res.json() as Record<string, any>;
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };

  process.stderr.write(`  content edits, 100 recipients, ${EDITORS} editors (${seconds}s)...\n`);
  const request = (w: number, i: number) => ({
    method: 'PATCH', path: `/api/v1/messages/${info.targets[w]}`, auth: auth[w]!, body: new URLSearchParams({ content: `edit ${i} by ${w} with **markdown**` }).toString(),
  });
  await runLoad('warm-up', { base: info.base, concurrency: EDITORS, durationMs: 1000, request });
  printStats([await runLoad('edit content, 100 recipients', { base: info.base, concurrency: EDITORS, durationMs: seconds * 1000, request })]);

  // A listener's parked poll: time from the request's answer to the poll's answer.
  const listener = auth[EDITORS]!;
  const { queue_id: queueId, last_event_id: startId } = await call('POST', '/api/v1/register', listener, { event_types: JSON.stringify(['message', 'update_message']) });
  let lastId = startId as number;
  const delivery = async (act: () => Promise<unknown>) => {
    const poll = call('GET', '/api/v1/events', listener, { queue_id: queueId, last_event_id: String(lastId) });
    await new Promise((r) => setTimeout(r, 20)); // let the poll park: a benchmark, not a test
    await act();
    const answered = performance.now();
    const got = await poll;
    lastId = got.events.at(-1).id;
    return performance.now() - answered;
  };
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sends: number[] = [];
  const edits: number[] = [];
  for (let i = 0; i < 40; i++) {
    sends.push(await delivery(() => call('POST', '/api/v1/messages', auth[0]!, { type: 'stream', to: 'subs100', topic: 'latency', content: `send ${i}` })));
    edits.push(await delivery(() => call('PATCH', `/api/v1/messages/${info.targets[0]}`, auth[0]!, { content: `latency ${i}` })));
  }
  process.stdout.write(`\nparked poll after the answer (median of 40): send ${median(sends).toFixed(2)} ms, edit ${median(edits).toFixed(2)} ms\n`);

  const owner = authOf(info.owner);
  let t0 = performance.now();
  await call('PATCH', `/api/v1/messages/${info.bigFirst}`, owner, { topic: 'big topic renamed', propagate_mode: 'change_all' });
  const rename = performance.now() - t0;
  t0 = performance.now();
  await call('PATCH', `/api/v1/messages/${info.bigFirst}`, owner, { stream_id: String(info.elsewhere), propagate_mode: 'change_all' });
  const move = performance.now() - t0;
  process.stdout.write(`topic of ${TOPIC_SIZE} messages, change_all: rename ${rename.toFixed(0)} ms, move to another stream ${move.toFixed(0)} ms\n`);
  child.kill('SIGTERM');
}
