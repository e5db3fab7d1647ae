/**
 * `npm run bench -- login [seconds]`: POST /fetch_api_key over HTTP, a right password and a
 * wrong one, one client at a time and four at once: the cost of a password check
 * (Argon2id at OWASP's cost) and of the sign-in budgets around it (BENCH_RATE_LIMITS=1).
 * The server runs in its own process.
 */
import { runLoad, printStats, type LoadStats } from './lib/http-load.js';
import { reportToParent, startChild } from './lib/child.js';

const USERS = 8;

if (process.argv[2] === 'child') {
  const { startBenchApp } = await import('./lib/bench-app.js');
  const { transact } = await import('../src/actions/transaction.js');
  const { doCreateUser } = await import('../src/actions/user-create.js');
  const bench = await startBenchApp('login');
  const emails: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const u = await transact(bench.app.ctx, (tx) => doCreateUser(tx, bench.realm, { email: `login${i}@bench.test`, fullName: `Login ${i}`, password: `password-${i}-long` }));
    emails.push(u.email);
  }
  const base = await bench.app.http.listen({ host: '127.0.0.1', port: 0 });
  reportToParent(bench, { base, emails });
} else {
  const seconds = Number(process.argv[2] ?? 5);
  const { child, setup: { base, emails } } = await startChild<{ base: string; emails: string[] }>(import.meta.filename);
  const rows: LoadStats[] = [];
  const body = (w: number, right: boolean) => new URLSearchParams({ username: emails[w % emails.length]!, password: right ? `password-${w % emails.length}-long` : 'not-the-password' }).toString();
  for (const [label, concurrency, right] of [['right password, 1 client', 1, true], ['right password, 4 clients', 4, true], ['wrong password, 4 clients', 4, false]] as const) {
    process.stderr.write(`  ${label} (${seconds}s)...\n`);
    rows.push(await runLoad(label, { base, concurrency, durationMs: seconds * 1000, request: (w) => ({ method: 'POST', path: '/api/v1/fetch_api_key', auth: '', body: body(w, right) }) }));
  }
  printStats(rows);
  child.kill('SIGTERM');
}
