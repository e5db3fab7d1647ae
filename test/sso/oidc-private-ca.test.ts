import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { startNodeProcess, type NodeProcess } from '../helpers/node-process.js';
import { HOST } from '../helpers/app.js';

/**
 * A provider on https whose certificate comes from a private certificate authority: a
 * server started with Node's NODE_EXTRA_CA_CERTS reads its discovery document and sends the
 * person there; one started without it refuses with a clear page (the certificate is not
 * trusted), never a 500.
 */

const OPENSSL = '/usr/bin/openssl';
const SKIP = fs.existsSync(OPENSSL) ? false : 'openssl is not installed';

let dir: string;
let server: https.Server;
let issuer: string;
const nodes: NodeProcess[] = [];

before(async () => {
  if (SKIP) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-oidc-ca-'));
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Parley test private CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'idp.key', '-out', 'idp.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'idp.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'idp.pem', '-days', '2', '-extfile', 'san.ext');
  let handler: Parameters<typeof https.createServer>[1] = (_req, res) => res.writeHead(503).end();
  server = https.createServer({ key: fs.readFileSync(path.join(dir, 'idp.key')), cert: fs.readFileSync(path.join(dir, 'idp.pem')) }, (req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'parley', client_secret: 'secret', redirect_uris: [`http://${HOST}/complete/oidc/`] }],
    cookies: { keys: ['test-cookie-key'] },
  });
  handler = provider.callback();
});
after(async () => {
  for (const n of nodes) await n.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function startWith(env: Record<string, string>): Promise<NodeProcess> {
  const node = await startNodeProcess('', '', {
    PARLEY_OIDC_ISSUER: issuer, PARLEY_OIDC_CLIENT_ID: 'parley', PARLEY_OIDC_CLIENT_SECRET: 'secret', PARLEY_OIDC_NAME: 'Private CA IdP', ...env,
  });
  nodes.push(node);
  return node;
}

const begin = (node: NodeProcess) => fetch(`${node.url}/accounts/login/social/oidc`, { headers: { host: HOST }, redirect: 'manual' });

test('NODE_EXTRA_CA_CERTS: a provider with a private CA is reached, and the person sent to it', { skip: SKIP, timeout: 120_000 }, async () => {
  const node = await startWith({ NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem') });
  const res = await begin(node);
  assert.equal(res.status, 302, await res.text());
  const to = new URL(res.headers.get('location')!);
  assert.equal(to.origin, issuer);
  assert.equal(to.searchParams.get('client_id'), 'parley');
  assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
});

test('without it, the untrusted certificate gives a clear page, not a 500', { skip: SKIP, timeout: 120_000 }, async () => {
  const node = await startWith({});
  const res = await begin(node);
  const body = await res.text();
  assert.equal(res.status, 502, body);
  assert.match(body, /Private CA IdP cannot be reached/);
});
