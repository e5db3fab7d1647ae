/**
 * PARLEY_SAML_IDPS as an administrator writes it: mistakes stop the start with the key at
 * fault; an IdP from a metadata file or URL (fetched at first use, then kept); a service
 * provider key that signs the AuthnRequests, which the IdP verifies.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { readSamlConfig } from '../../src/lib/saml-config.js';
import { HOST } from '../helpers/app.js';
import { TestIdp, makeKeyPair, tempDir, IDP_ENTITY_ID, IDP_SSO_URL } from './saml-idp.js';
import { samlWorld, idpEntry, writeConfig, sessionCookie, assertRefused, type SamlWorld } from './saml-helpers.js';

const dir = tempDir();
const idpKeys = makeKeyPair(dir, 'idp');
const worlds: SamlWorld[] = [];
after(async () => {
  for (const w of worlds) await w.t.close();
});

const configError = (doc: unknown) => {
  try {
    readSamlConfig(writeConfig(dir, doc));
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

test('mistakes in the file stop the start, naming the IdP and the key', () => {
  const entry = idpEntry(idpKeys);
  const { url: _url, ...noUrl } = entry;
  assert.match(configError({ idps: { okta: noUrl } }), /IdP 'okta': needs "url"/);
  assert.match(configError({ idps: { okta: { ...entry, atr_email: 'mail' } } }), /IdP 'okta': unknown key "atr_email"/);
  assert.match(configError({ idps: { okta: { ...entry, metadata_url: 'https://idp.example/metadata' } } }), /"url", "x509cert_path" come from the metadata/);
  const { x509cert_path: _p, ...noCert } = entry;
  assert.match(configError({ idps: { okta: { ...noCert, x509cert: 'bm90IGEgY2VydA==' } } }), /IdP 'okta' certificate: not an X.509 certificate/);
  assert.match(configError({ idps: { okta: { ...entry, display_icon: 'javascript:alert(1)' } } }), /"display_icon" must be an http\(s\) URL/);
  assert.match(configError({ sp: { private_key: idpKeys.keyFile }, idps: { okta: entry } }), /"private_key" and "certificate" go together/);
  assert.match(configError({ idps: { 'Big IdP': entry } }), /must be lowercase letters/);
  assert.match(configError({ idps: {} }), /names no "idps"/);
});

test('defaults: Zulip\'s attribute names, display name SAML, no auto-signup; the SP entity id is the server\'s URL', () => {
  const c = readSamlConfig(writeConfig(dir, { idps: { okta: { ...idpEntry(idpKeys), display_name: undefined } } }));
  const okta = c.idps[0]!;
  assert.deepEqual(okta.attrs, { email: 'email', fullName: null, firstName: 'first_name', lastName: 'last_name' });
  assert.equal(okta.displayName, 'SAML');
  assert.equal(okta.autoSignup, false);
  assert.equal(c.sp.entityId, null);
  assert.deepEqual(okta.endpoint, { entityId: IDP_ENTITY_ID, ssoUrl: IDP_SSO_URL, certs: [idpKeys.cert.replace(/\r\n/g, '\n')] });
});

test('metadata_file: entity id, SSO URL and signing certificate read from the IdP\'s metadata at start', () => {
  const idp = new TestIdp(idpKeys, '');
  fs.writeFileSync(path.join(dir, 'idp-metadata.xml'), idp.metadataXml());
  const c = readSamlConfig(writeConfig(dir, { idps: { kc: { display_name: 'Keycloak', metadata_file: 'idp-metadata.xml' } } }));
  const endpoint = c.idps[0]!.endpoint;
  assert.ok(!('metadataUrl' in endpoint));
  assert.equal(endpoint.entityId, IDP_ENTITY_ID);
  assert.equal(endpoint.ssoUrl, IDP_SSO_URL);
  assert.equal(endpoint.certs.length, 1);
  assert.match(configError({ idps: { kc: { metadata_file: 'idp-metadata.xml', entity_id: 'https://other.example' } } }), /no identity provider with entityID https:\/\/other\.example/);
});

test('metadata_url: fetched at the first sign-in, kept for the next; the sign-in goes through', async () => {
  let hits = 0;
  const metadata = new TestIdp(idpKeys, '').metadataXml();
  const server = http.createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metadata`;
  const w = await samlWorld({ dir, idpKeys, idps: () => ({ kc: { display_name: 'Keycloak', metadata_url: url, auto_signup: true } }) });
  worlds.push(w);
  assert.equal(hits, 0, 'not fetched at start');
  for (const email of ['meta1@parley.test', 'meta2@parley.test']) {
    const req = await w.begin('/accounts/login/social/saml/kc');
    const res = await w.post(await w.idp.respond(req, email), req.relayState);
    assert.equal(res.statusCode, 302, res.body);
    assert.ok(sessionCookie(res));
  }
  assert.equal(hits, 1, 'fetched once, then kept');
});

test('metadata_url that cannot be read: a clear page at the button, no redirect', async () => {
  const server = http.createServer((_req, res) => res.writeHead(500).end('down'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metadata`;
  const w = await samlWorld({ dir, idpKeys, idps: () => ({ kc: { metadata_url: url } }) });
  worlds.push(w);
  const res = await w.t.app.http.inject({ method: 'GET', url: '/accounts/login/social/saml/kc', headers: { host: HOST } });
  assertRefused(res, 502, /cannot be reached right now/);
});

test('an SP key signs the AuthnRequests: the metadata says so and carries the certificate; the IdP verifies the signature', async () => {
  const spKeys = makeKeyPair(dir, 'sp');
  const w = await samlWorld({ dir, idpKeys, sp: { entity_id: 'https://chat.example.com/saml', private_key: spKeys.keyFile, certificate: spKeys.certFile } });
  worlds.push(w);
  const meta = await w.t.app.http.inject({ method: 'GET', url: '/saml/metadata.xml', headers: { host: HOST } });
  assert.match(meta.body, /entityID="https:\/\/chat\.example\.com\/saml"/);
  assert.match(meta.body, /AuthnRequestsSigned="true"/);
  assert.ok(meta.body.includes(spKeys.cert.split('\n')[1]!), 'the signing certificate is in the metadata');
  const alice = await w.t.createUser({ email: 'alice@parley.test', name: 'Alice' });
  const req = await w.begin();
  assert.equal(req.signed, true);
  const res = await w.post(await w.idp.respond(req, alice.email), req.relayState);
  assert.equal(res.statusCode, 302, res.body);
  assert.ok(sessionCookie(res));
  // The audience is the configured entity id, not the server's URL.
  const other = await w.begin();
  assertRefused(await w.post(await w.idp.respond(other, alice.email, { audience: 'http://parley.test' }), other.relayState), 400, /could not be verified/);
});
