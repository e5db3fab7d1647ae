import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { transact } from '../actions/transaction.js';
import { users } from '../store/repos/users.js';
import { doCreateUser } from '../actions/user-create.js';
import { createStreamWithSubscribers } from '../actions/stream-create.js';
import { sendMessage } from '../actions/message-send.js';
import { realmEmailDomain, ROOT_STRING_ID } from '../lib/realm-host.js';
import { storeOptions } from './options.js';
import { withContext, findRealm } from './admin.js';

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Dennis', 'Radia', 'John', 'Hedy', 'Tim', 'Sophie', 'Linus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Ritchie', 'Perlman', 'Backus', 'Lamarr', 'Berners-Lee', 'Wilson', 'Torvalds'];
export const DEMO_STREAMS: Array<{ name: string; description: string; inviteOnly?: boolean; share: number }> = [
  { name: 'general', description: 'Everyone, everything. Start **here**.', share: 1 },
  { name: 'engineering', description: 'Builds, reviews and `on-call`.', share: 0.6 },
  { name: 'design', description: 'Mockups and critique.', share: 0.3 },
  { name: 'random', description: 'Off topic, on purpose.', share: 0.8 },
  { name: 'announcements', description: 'Company news.', share: 1 },
  { name: 'leadership', description: 'Private: the leadership team.', inviteOnly: true, share: 0.15 },
];
export const DEMO_PASSWORD = 'parley-demo';
const TOPICS = ['standup', 'release 2.4', 'lunch', 'incident review', 'roadmap', 'onboarding', 'weekly sync', 'ideas'];
const LINES = [
  'Morning all! :wave:', 'The build is green again, thanks for the fix.', 'Can someone review https://example.com/pull/42 ?',
  'I pushed the **migration** script, please try it on staging.', 'Lunch at noon? :pizza:', 'Postmortem draft is up, comments welcome.',
  '```python\nprint("hello from the demo")\n```', '> quoting the spec here\n\nand I agree with it.', 'Shipping it :rocket:',
  'Who owns the on-call rota this week?', '/me is heads-down on the release notes', 'Numbers look good: 99.9% uptime last month.',
];

/** A small deterministic generator so that two demo runs with the same seed look alike. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

export interface DemoOptions {
  users: number;
  messages: number;
  seed: number;
  /** Progress reporting; the CLI passes a bar, tests pass nothing. */
  progress?: { start(total: number, label: string): void; tick(n?: number): void; stop(): void };
}

export interface DemoResult { users: UserRow[]; streams: string[]; messages: number }

/** Creates (or reuses) demo users and streams, then the demo conversation. Safe to re-run. */
export async function runDemo(ctx: AppContext, realm: RealmRow, opts: DemoOptions): Promise<DemoResult> {
  const random = rng(opts.seed);
  const domain = realmEmailDomain(ctx.config, realm);
  const people: UserRow[] = [];
  opts.progress?.start(opts.users, 'users');
  for (let i = 0; i < opts.users; i++) {
    const email = `demo${i + 1}@${domain}`;
    const existing = await users.findByEmail(ctx.store.db, realm.id, email);
    const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length + i) % LAST.length]}${i >= FIRST.length * LAST.length ? ` ${i}` : ''}`;
    people.push(existing ?? await transact(ctx, (tx) => doCreateUser(tx, realm, { email, fullName: name, password: DEMO_PASSWORD })));
    opts.progress?.tick();
  }
  opts.progress?.stop();

  opts.progress?.start(DEMO_STREAMS.length, 'streams');
  for (const s of DEMO_STREAMS) {
    const members = people.filter((_, i) => i === 0 || random() < s.share);
    await transact(ctx, (tx) => createStreamWithSubscribers(tx, realm, { name: s.name, description: s.description, inviteOnly: s.inviteOnly ?? false }, members));
    opts.progress?.tick();
  }
  opts.progress?.stop();

  opts.progress?.start(opts.messages, 'messages');
  const subscribers = new Map<string, UserRow[]>();
  for (const s of DEMO_STREAMS) {
    const ids = new Set((await ctx.store.db.selectFrom('subscription').innerJoin('stream', 'stream.id', 'subscription.stream_id')
      .select('subscription.user_id').where('stream.realm_id', '=', realm.id).where('stream.name', '=', s.name).where('subscription.active', '=', 1).execute()).map((r) => r.user_id));
    subscribers.set(s.name, people.filter((p) => ids.has(p.id)));
  }
  let sent = 0;
  while (sent < opts.messages) {
    // Submitted together, they share commits (the send path's group commit).
    const batch = Math.min(50, opts.messages - sent);
    await Promise.all(Array.from({ length: batch }, () => {
      const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
      if (random() < 0.8) {
        const stream = pick(DEMO_STREAMS);
        const members = subscribers.get(stream.name)!;
        const sender = pick(members);
        const mention = random() < 0.15 ? ` @**${pick(people).full_name}**` : '';
        return sendMessage(ctx, realm, sender, {
          to: { kind: 'stream', name: stream.name }, topic: pick(TOPICS), content: `${pick(LINES)}${mention}`, client: 'website',
        });
      }
      const sender = pick(people);
      const other = pick(people.filter((p) => p.id !== sender.id));
      return sendMessage(ctx, realm, sender, { to: { kind: 'private', ids: [other.id] }, content: pick(LINES), client: 'website' });
    }));
    sent += batch;
    opts.progress?.tick(batch);
  }
  opts.progress?.stop();
  return { users: people, streams: DEMO_STREAMS.map((s) => s.name), messages: sent };
}

function bar(): NonNullable<DemoOptions['progress']> {
  const b = new cliProgress.SingleBar({
    format: '  {label} [{bar}] {value}/{total} ({percentage}%) eta {eta}s',
    stream: process.stderr, hideCursor: true, clearOnComplete: false,
    // Piped output (CI logs) still gets a line every few seconds.
    noTTYOutput: true, notTTYSchedule: 3000,
  }, cliProgress.Presets.shades_classic);
  return {
    start: (total, label) => b.start(total, 0, { label: label.padEnd(8) }),
    tick: (n = 1) => b.increment(n),
    stop: () => b.stop(),
  };
}

export function addDemoCommand(program: Command): void {
  storeOptions(program.command('demo').description('fill an organization with demo users, streams and messages'))
    .option('--org <string_id>', 'organization string id (default: the root organization)', ROOT_STRING_ID)
    .option('--users <n>', 'number of demo users', (v) => Number(v), 30)
    .option('--messages <n>', 'number of demo messages', (v) => Number(v), 3000)
    .option('--seed <n>', 'random seed', (v) => Number(v), 1)
    .action(async (opts: Record<string, unknown>) => withContext(opts, async (ctx) => {
      const realm = await findRealm(ctx, String(opts.org));
      const result = await runDemo(ctx, realm, {
        users: Number(opts.users), messages: Number(opts.messages), seed: Number(opts.seed), progress: bar(),
      });
      process.stdout.write(`\nDemo ready: ${result.users.length} users, ${result.streams.length} streams, ${result.messages} messages.\n`
        + `Log in as ${result.users[0]!.email} (or demo2, demo3, ...) with password ${DEMO_PASSWORD}.\n`);
    }));
}
