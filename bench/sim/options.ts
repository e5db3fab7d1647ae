import { parseArgs } from 'node:util';

/** Options of `npm run bench -- sim-users`; see usage() below. */
export interface SimOptions {
  users: number; step: number; ramp: number; duration: number; stepSeconds: number | undefined;
  streams: number; subs: number; history: number;
  thinkMean: number; thinkMin: number; reactionWeight: number;
  client: 'terminal' | 'web'; workers: number;
  loginRate: number; loginSeconds: number; loginUsers: number;
  url: string | undefined; adminEmail: string | undefined; adminPassword: string | undefined;
  databaseUrl: string | undefined; json: string | undefined;
  /** Server on CPU 0, generator on CPU 1 (issue 37's measure of one server core). */
  taskset: boolean;
}

export const usage = `npm run bench -- sim-users [options]
  --users N            most concurrent simulated users (default 2000)
  --step N             users added per step (default 250)
  --ramp R             users started per second within a step (default 10)
  --duration S         seconds for all steps together, ramps included (default 600)
  --step-seconds S     or: measured seconds per step, after its ramp (overrides --duration)
  --streams N          streams in the organization (default 50)
  --subs N             streams each user is subscribed to (default 10)
  --history N          messages seeded per stream (default 60)
  --think-mean S       mean wait between a user's actions (default 20)
  --think-min S        least wait between a user's actions (default 1)
  --reaction-weight W  reactions, against switch 6.5 : scroll 2 : send 1 : unread 1 (default 0.5)
  --client C           register like zulip-terminal ("terminal", default) or the web app ("web")
  --workers N          load-generator processes (default 2)
  --login-rate R       password sign-ins per second in the sign-in phase (default 2; 0 skips it)
  --login-seconds S    length of the sign-in phase (default 15)
  --login-users N      users given a password (default 20)
  --database-url URL   run the server on this (empty) PostgreSQL database instead of SQLite
  --url URL            drive a running server on the loopback instead of starting one;
                       seeds through the API as --admin-email / --admin-password
  --json FILE          also write the figures as JSON
  --taskset            pin the server to CPU 0 and the generator to CPU 1 (Linux taskset):
                       the server's capacity on one core
BENCH_PROFILE=<dir> writes the server's CPU profile there.`;

export function parseOptions(argv: string[]): SimOptions {
  const { values: v } = parseArgs({
    args: argv, strict: true,
    options: Object.fromEntries(['users', 'step', 'ramp', 'duration', 'step-seconds', 'streams', 'subs', 'history', 'think-mean', 'think-min',
      'reaction-weight', 'client', 'workers', 'login-rate', 'login-seconds', 'login-users', 'url', 'admin-email', 'admin-password',
      'database-url', 'json'].map((k) => [k, { type: 'string' as const }]).concat([['help', { type: 'boolean' as const }], ['taskset', { type: 'boolean' as const }]] as never)),
  }) as { values: Record<string, string | undefined> & { help?: boolean; taskset?: boolean } };
  if (v.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const num = (k: string, d: number) => {
    const x = v[k] === undefined ? d : Number(v[k]);
    if (!Number.isFinite(x) || x < 0) throw new Error(`--${k} must be a number`);
    return x;
  };
  const client = v.client ?? 'terminal';
  if (client !== 'terminal' && client !== 'web') throw new Error('--client must be terminal or web');
  const users = num('users', 2000);
  return {
    users, step: Math.min(users, num('step', 250)), ramp: num('ramp', 10), duration: num('duration', 600),
    stepSeconds: v['step-seconds'] === undefined ? undefined : num('step-seconds', 60),
    streams: num('streams', 50), subs: num('subs', 10), history: num('history', 60),
    thinkMean: num('think-mean', 20), thinkMin: num('think-min', 1), reactionWeight: num('reaction-weight', 0.5),
    client, workers: Math.max(1, num('workers', 2)),
    loginRate: num('login-rate', 2), loginSeconds: num('login-seconds', 15), loginUsers: num('login-users', 20),
    url: v.url, adminEmail: v['admin-email'], adminPassword: v['admin-password'],
    databaseUrl: v['database-url'], json: v.json, taskset: v.taskset === true,
  };
}
