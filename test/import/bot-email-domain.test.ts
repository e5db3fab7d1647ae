import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { testApp, createAcme, basic, type TestApp, type TestUser } from '../helpers/app.js';
import { loadConfig } from '../../src/config.js';
import { realmEmailDomain } from '../../src/lib/realm-host.js';

/**
 * Issue 33: with the external URL on a bare IP address, POST /bots in any organization but
 * the default one made `x-bot@acme.127.0.0.1`, which Parley's own email check refuses, so no
 * bot could be created there (nor imported). Made-up addresses now take Zulip's
 * get_fake_email_domain: the organization's host when it makes a valid address, else the
 * server's fake email domain.
 */

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Real HTTP to the loopback port, naming `host` in the Host header (fetch would name the address). */
function call(port: number, host: string, as: TestUser | { email: string; apiKey: string }, method: string, url: string, params: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, method, path: `/api/v1${url}`,
      headers: { host, authorization: basic(as.email, as.apiKey), 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Creates a bot over HTTP in the organization at `host`, then calls as it with the address
 * expected, which /users/me confirms; and its owner's GET /bots lists it under that address.
 */
async function botThroughHttp(port: number, host: string, owner: TestUser, shortName: string, want: string): Promise<void> {
  const made = await call(port, host, owner, 'POST', '/bots', { full_name: `Bot ${shortName}`, short_name: shortName });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const me = await call(port, host, { email: want, apiKey: made.body.api_key }, 'GET', '/users/me');
  assert.equal(me.status, 200, JSON.stringify(me.body));
  assert.deepEqual([me.body.user_id, me.body.email, me.body.is_bot], [made.body.user_id, want, true]);
  const listed = await call(port, host, owner, 'GET', '/bots');
  assert.deepEqual(listed.body.bots.map((b: { username: string }) => b.username), [want]);
}

async function withServer(externalHost: (port: number) => string, run: (t: TestApp, port: number, acmeOwner: TestUser) => Promise<void>): Promise<void> {
  const port = await freePort();
  const t = await testApp({ externalUrl: `http://${externalHost(port)}` });
  try {
    const { owner } = await createAcme(t);
    await t.app.http.listen({ port, host: '127.0.0.1' });
    await run(t, port, owner);
  } finally {
    await t.close();
  }
}

test('POST /bots over HTTP in a second organization, external URL on http://127.0.0.1:PORT', async () => {
  await withServer((port) => `127.0.0.1:${port}`, async (t, port, acmeOwner) => {
    await botThroughHttp(port, `acme.127.0.0.1:${port}`, acmeOwner, 'helper', 'helper-bot@127.0.0.1');
    await botThroughHttp(port, `127.0.0.1:${port}`, t.owner, 'helper', 'helper-bot@127.0.0.1');
  });
});

test('POST /bots over HTTP in a second organization, external URL on a name host with a port', async () => {
  await withServer((port) => `chat.parley.test:${port}`, async (t, port, acmeOwner) => {
    await botThroughHttp(port, `acme.chat.parley.test:${port}`, acmeOwner, 'helper', 'helper-bot@acme.chat.parley.test');
    await botThroughHttp(port, `chat.parley.test:${port}`, t.owner, 'helper', 'helper-bot@chat.parley.test');
  });
});

test('POST /bots in a second organization on IPv6 and localhost external URLs', async () => {
  for (const [external, acmeHost, want] of [
    ['http://[::1]:9991', 'acme.[::1]:9991', 'helper-bot@[::1]'],
    ['http://localhost:9991', 'acme.localhost:9991', 'helper-bot@acme.localhost'],
  ] as const) {
    const t = await testApp({ externalUrl: external });
    try {
      const { owner } = await createAcme(t);
      const made = await t.api('POST', '/api/v1/bots', { as: owner, host: acmeHost, params: { full_name: 'Helper', short_name: 'helper' } });
      assert.equal(made.status, 200, `${external}: ${JSON.stringify(made.body)}`);
      const me = await t.api('GET', '/api/v1/users/me', { as: { id: made.body.user_id, email: want, apiKey: made.body.api_key, row: null as never }, host: acmeHost });
      assert.equal(me.status, 200, `${external}: ${JSON.stringify(me.body)}`);
      assert.equal(me.body.email, want);
    } finally {
      await t.close();
    }
  }
});

test('realmEmailDomain: one domain for every made-up address, whatever the external URL', () => {
  const cases: Array<[string, string | undefined, string, string]> = [
    // external URL, PARLEY_FAKE_EMAIL_DOMAIN, the default organization's, acme's
    ['http://127.0.0.1:9991', undefined, '127.0.0.1', '127.0.0.1'],
    ['http://10.0.0.10', undefined, '10.0.0.10', '10.0.0.10'],
    ['http://[::1]:9991', undefined, '[::1]', '[::1]'],
    ['http://[2001:DB8::7]', undefined, '[2001:db8::7]', '[2001:db8::7]'],
    ['http://localhost:9991', undefined, 'localhost', 'acme.localhost'],
    ['https://Chat.Example.com:8443', undefined, 'chat.example.com', 'acme.chat.example.com'],
    // One label, or a name no address may carry: the fallback.
    ['http://chat:8080', undefined, 'localhost', 'acme.chat'],
    ['http://parley_web:9991', undefined, 'localhost', 'localhost'],
    ['http://127.0.0.1:9991', 'chat.example.org', '127.0.0.1', 'chat.example.org'],
    ['http://parley_web', 'Chat.Example.org', 'chat.example.org', 'chat.example.org'],
  ];
  for (const [externalUrl, fakeEmailDomain, root, acme] of cases) {
    const config = loadConfig({ externalUrl, fakeEmailDomain });
    assert.equal(realmEmailDomain(config, { string_id: '' }), root, `${externalUrl} root`);
    assert.equal(realmEmailDomain(config, { string_id: 'acme' }), acme, `${externalUrl} acme`);
  }
  assert.throws(() => loadConfig({ fakeEmailDomain: 'not a domain' }), /PARLEY_FAKE_EMAIL_DOMAIN/);
});
