/**
 * The organization every server-side benchmark starts from: Parley on SQLite in a
 * temporary data directory, its default organization and owner, and helpers to add
 * members and streams through the real actions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import type { ConfigOverrides } from '../../src/config.js';
import { parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { ensureDefaultRealm } from '../../src/cli/bootstrap.js';
import { transact } from '../../src/actions/transaction.js';
import { realms } from '../../src/store/repos/realms.js';
import { doCreateUser } from '../../src/actions/user-create.js';
import { createStreamWithSubscribers, type StreamSpec } from '../../src/actions/stream-create.js';
import type { RealmRow, StreamRow, UserRow } from '../../src/store/rows.js';

export const BENCH_OWNER = 'owner@bench.test';

/**
 * Benchmarks run without request budgets. BENCH_RATE_LIMITS=1 turns them on with budgets
 * no load reaches, to measure what counting costs on the hot paths.
 */
export function benchLimits(): ConfigOverrides {
  if (!process.env.BENCH_RATE_LIMITS) return { rateLimiting: false };
  return { rateLimiting: true, rateLimits: parseRateLimitRules(['api_by_user', 'api_by_ip', 'authenticate_by_username', 'authenticate_by_ip'].map((d) => `${d}=60:1000000000`).join(';')) };
}

/**
 * BENCH_METRICS=1: Prometheus metrics on (PARLEY_METRICS_TOKEN), scraped every 5 s as a
 * close-by Prometheus would, to measure what they cost on the hot paths.
 */
export function benchMetrics(): ConfigOverrides {
  return process.env.BENCH_METRICS ? { metricsToken: 'bench-metrics-token-0123456789' } : {};
}

export interface BenchApp {
  app: App;
  realm: RealmRow;
  owner: UserRow;
  /**
   * Members created through doCreateUser (no password: nothing to hash), `perTransaction`
   * of them in each transaction (one commit per user made 10,000 users take minutes).
   */
  addUsers(n: number, emailPrefix: string, namePrefix: string, perTransaction?: number): Promise<UserRow[]>;
  addStream(spec: StreamSpec | string, members: UserRow[]): Promise<StreamRow>;
  /** Closes the server and removes the data directory. */
  close(): Promise<void>;
}

export async function startBenchApp(name: string, overrides: ConfigOverrides = {}): Promise<BenchApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-bench-${name}-`));
  const app = await buildApp({ dataDir, logLevel: 'silent', adminEmail: BENCH_OWNER, adminPassword: 'bench-password-1', ...benchLimits(), ...benchMetrics(), ...overrides });
  const metrics = app.ctx.metrics;
  if (metrics) setInterval(() => void metrics.registry.metrics(), 5_000).unref();
  // Benchmarks start from an empty organization, as their earlier figures did.
  await ensureDefaultRealm(app.ctx, { welcome: false });
  const realm = (await realms.findByStringId(app.ctx.store.db, ''))!;
  const owner = await app.ctx.store.db.selectFrom('users').selectAll().where('email', '=', BENCH_OWNER).executeTakeFirstOrThrow();
  return {
    app, realm, owner,
    addUsers: async (n, emailPrefix, namePrefix, perTransaction = 1) => {
      const out: UserRow[] = [];
      for (let i = 0; i < n; i += perTransaction) {
        const end = Math.min(n, i + perTransaction);
        out.push(...await transact(app.ctx, async (tx) => {
          const made: UserRow[] = [];
          for (let j = i; j < end; j++) made.push(await doCreateUser(tx, realm, { email: `${emailPrefix}${j}@bench.test`, fullName: `${namePrefix} ${j}` }));
          return made;
        }));
        if (n >= 500 && Math.floor(end / 250) > Math.floor(i / 250)) process.stderr.write(`  ${end}/${n} users\r`);
      }
      if (n >= 500) process.stderr.write('\n');
      return out;
    },
    addStream: (spec, members) => transact(app.ctx, (tx) => createStreamWithSubscribers(tx, realm, spec, members)),
    close: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
