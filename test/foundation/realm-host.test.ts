import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, createAcme, ACME_HOST, HOST, type TestApp, type TestUser } from '../helpers/app.js';
import { subdomainOf } from '../../src/lib/realm-host.js';
import { loadConfig } from '../../src/config.js';

/**
 * A Host header names an organization however it is spelled: with the root's trailing dot
 * (a fully qualified name) or a port, in any case. Before, `acme.parley.test.` fell through
 * to the root organization.
 */
let t: TestApp;
let acmeOwner: TestUser;

before(async () => {
  t = await testApp();
  acmeOwner = (await createAcme(t)).owner;
});
after(() => t.close());

test('subdomainOf: trailing dot, port, case and spaces do not change the organization', () => {
  const config = loadConfig({ externalUrl: 'http://parley.test:9991' });
  for (const h of ['acme.parley.test', 'acme.parley.test.', 'ACME.Parley.Test.', 'acme.parley.test:443', 'acme.parley.test.:443', 'acme.parley.test:', ' acme.parley.test ']) {
    assert.equal(subdomainOf(config, h), 'acme', h);
  }
  for (const h of ['parley.test', 'parley.test.', 'parley.test:9991', 'parley.test.:9991', undefined]) assert.equal(subdomainOf(config, h), '', String(h));
});

for (const host of [`${ACME_HOST}.`, `${ACME_HOST}:9991`, `${ACME_HOST}.:80`]) {
  test(`Host '${host}' reaches Acme, not the default organization`, async () => {
    const me = await t.api('GET', '/api/v1/users/me', { as: acmeOwner, host });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal((me.body as { email: string }).email, acmeOwner.email);
    // The default organization's owner is not Acme's user, whatever the spelling.
    const other = await t.api('GET', '/api/v1/users/me', { as: t.owner, host });
    assert.equal(other.status, 401);
    const settings = await t.api('GET', '/api/v1/server_settings', { as: null, host });
    assert.equal((settings.body as { realm_name: string }).realm_name, 'Acme');
  });
}

test(`Host '${HOST}.' is the default organization`, async () => {
  const me = await t.api('GET', '/api/v1/users/me', { host: `${HOST}.` });
  assert.equal(me.status, 200);
});
