/**
 * Parley's side of the SAML tests: a server with PARLEY_SAML_IDPS written for the test IdP,
 * and the browser's part (follow the redirect to the IdP, post its answer back) by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testApp, HOST, type TestApp } from '../helpers/app.js';
import { readSamlConfig } from '../../src/lib/saml-config.js';
import { TestIdp, makeKeyPair, tempDir, IDP_ENTITY_ID, IDP_SSO_URL, type KeyPair, type SamlRequestSeen } from './saml-idp.js';

export interface SamlWorld {
  t: TestApp;
  idp: TestIdp;
  dir: string;
  idpKeys: KeyPair;
  /** GET a sign-in URL; answers what the IdP reads from the redirect. */
  begin(url?: string, headers?: Record<string, string>): Promise<SamlRequestSeen>;
  /** The browser's form POST of the IdP's answer. */
  post(samlResponse: string | undefined, relayState: string | undefined): Promise<LightMyRequestResponse>;
  /** Users with this address in the organization. */
  accounts(email: string): Promise<number>;
}

/** The IdP's entry in PARLEY_SAML_IDPS, pointing at the test IdP's certificate file. */
export const idpEntry = (keys: KeyPair, extra: Record<string, unknown> = {}) =>
  ({ display_name: 'Test IdP', entity_id: IDP_ENTITY_ID, url: IDP_SSO_URL, x509cert_path: keys.certFile, ...extra });

export function writeConfig(dir: string, doc: unknown): string {
  const file = path.join(dir, `saml-${crypto.randomBytes(4).toString('hex')}.json`);
  fs.writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** By default `test` (no auto-signup) and `open` (auto-signup) on one server, both the same test IdP. */
export async function samlWorld(opts: { sp?: Record<string, unknown>; idpKeys?: KeyPair; dir?: string; idps?: (keys: KeyPair) => Record<string, unknown> } = {}): Promise<SamlWorld> {
  const dir = opts.dir ?? tempDir();
  const idpKeys = opts.idpKeys ?? makeKeyPair(dir, 'idp');
  const idps = opts.idps?.(idpKeys) ?? { test: idpEntry(idpKeys), open: idpEntry(idpKeys, { display_name: 'Open IdP', auto_signup: true }) };
  const file = writeConfig(dir, { sp: opts.sp ?? {}, idps });
  const t = await testApp({ sso: { passwordAuth: true, oidc: null, saml: readSamlConfig(file), ldap: null } });
  const meta = await t.app.http.inject({ method: 'GET', url: '/saml/metadata.xml', headers: { host: HOST } });
  assert.equal(meta.statusCode, 200);
  const idp = new TestIdp(idpKeys, meta.body, opts.sp?.private_key !== undefined);
  return {
    t, idp, dir, idpKeys,
    async begin(url = '/accounts/login/social/saml/test', headers = {}) {
      const res = await t.app.http.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });
      assert.equal(res.statusCode, 302, res.body);
      return idp.readRequest(String(res.headers.location));
    },
    post(samlResponse, relayState) {
      const form = new URLSearchParams();
      if (samlResponse !== undefined) form.set('SAMLResponse', samlResponse);
      if (relayState !== undefined) form.set('RelayState', relayState);
      // The IdP's page posts cross-site: no cookie of Parley's comes with it.
      return t.app.http.inject({
        method: 'POST', url: '/complete/saml/', payload: form.toString(),
        headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://idp.example.test' },
      });
    },
    async accounts(email) {
      const rows = await t.app.ctx.store.db.selectFrom('users').select('id').where('delivery_email', '=', email).execute();
      return rows.length;
    },
  };
}

export const sessionCookie = (res: LightMyRequestResponse): string | undefined => res.cookies.find((c) => c.name === 'parley_session' && c.value !== '')?.value;

/** A refusal as the person sees it: the page with its words, and nothing that signs anyone in. */
export function assertRefused(res: LightMyRequestResponse, status: number, words: RegExp): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.match(res.body, words);
  assert.equal(sessionCookie(res), undefined, 'no session cookie');
  assert.equal(res.headers.location, undefined, 'no redirect (no zulip:// key, no signed-in page)');
}
