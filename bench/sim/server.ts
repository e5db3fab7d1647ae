/**
 * The server of a simulated-user run, in its own process: Parley on a temporary SQLite
 * directory (or the PostgreSQL database given), seeded through actions, then listening on
 * a free loopback port. It speaks to the parent in JSON lines on stdout: {progress} while
 * seeding, then {base, users}. SIGTERM closes it and removes the data directory.
 * Run by bench/sim-users.ts with one argument, the JSON of {shape, databaseUrl}.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { ensureDefaultRealm } from '../../src/cli/bootstrap.js';
import { realms } from '../../src/store/repos/realms.js';
import { benchLimits } from '../lib/bench-app.js';
import { seedThroughActions } from './seed-actions.js';
import type { Shape } from './shape.js';

const { shape, databaseUrl } = JSON.parse(process.argv[2]!) as { shape: Shape; databaseUrl?: string };
const say = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sim-'));
const app = await buildApp({
  dataDir, logLevel: 'silent', adminEmail: 'owner@sim.test', adminPassword: 'sim-owner-password-1',
  ...(databaseUrl ? { databaseUrl } : {}), ...benchLimits(),
});
await ensureDefaultRealm(app.ctx, { welcome: false });
const realm = (await realms.findByStringId(app.ctx.store.db, ''))!;
const users = await seedThroughActions(app, realm, shape, (progress) => say({ progress }));
const base = await app.http.listen({ host: '127.0.0.1', port: 0 });
say({ base, users });
process.on('SIGTERM', async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
