/**
 * Runs in its own process so the load generator does not share an event loop with
 * the server: Parley on a temp SQLite directory, plus a bare Fastify that answers the
 * exact bytes Parley gave for GET /users/me and GET /server_settings.
 * Prints one JSON line {parley, bare, email, apiKey} when ready.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../../src/app.js';
import { ensureDefaultRealm } from '../../src/cli/bootstrap.js';
import { benchLimits } from './bench-app.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
const app = await buildApp({ dataDir, logLevel: 'silent', adminEmail: 'bench@parley.test', adminPassword: 'bench-password-1', ...benchLimits(), externalUrl: 'http://127.0.0.1' });
// Benchmarks start from an empty organization, as their earlier figures did.
await ensureDefaultRealm(app.ctx, { welcome: false });
const owner = await app.ctx.store.db.selectFrom('users').selectAll().where('email', '=', 'bench@parley.test').executeTakeFirstOrThrow();
const parley = await app.http.listen({ host: '127.0.0.1', port: 0 });
const auth = 'Basic ' + Buffer.from(`${owner.email}:${owner.api_key}`).toString('base64');
const me = await (await fetch(`${parley}/api/v1/users/me`, { headers: { authorization: auth } })).text();
const settings = await (await fetch(`${parley}/api/v1/server_settings`)).text();

const bare = Fastify({ logger: false });
bare.get('/api/v1/users/me', (_req, reply) => reply.type('application/json; charset=utf-8').send(me));
bare.get('/api/v1/server_settings', (_req, reply) => reply.type('application/json; charset=utf-8').send(settings));
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

process.stdout.write(`${JSON.stringify({ parley, bare: bareUrl, email: owner.email, apiKey: owner.api_key })}\n`);
process.on('SIGTERM', async () => {
  await bare.close();
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
