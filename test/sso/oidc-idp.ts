import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import Provider, { type Configuration } from 'oidc-provider';
import { HOST, type TestApp } from '../helpers/app.js';
import type { OidcConfig } from '../../src/lib/sso-config.js';

/**
 * A real OpenID provider (oidc-provider) on a loopback port for the OpenID Connect tests,
 * and a browser small enough to walk its pages: follows redirects, keeps cookies per host,
 * signs in on the provider's development login form and consents.
 */

export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The people the provider knows, by the login typed on its form (the subject). */
  accounts: Map<string, IdpAccount>;
  /** Parley's settings for this provider. */
  oidc(overrides?: Partial<OidcConfig>): OidcConfig;
  close(): Promise<void>;
}

export interface IdpOptions {
  redirectUris: string[];
  /** Claims in the ID token itself (false: only at userinfo, oidc-provider's default for a code flow). */
  idTokenClaims?: boolean;
  /** The JWKS it publishes holds another key under the signing key's kid: its ID tokens fail a signature check. */
  forgedJwks?: boolean;
  /** Listen on this port (a provider that comes back up where it was down). */
  port?: number;
}

const rsaJwk = (kid: string) => {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
};

const publicPart = (jwk: crypto.JsonWebKey & { kid: string }) => ({ kty: jwk.kty, n: jwk.n, e: jwk.e, kid: jwk.kid, use: 'sig', alg: 'RS256' });

export async function startIdp(opts: IdpOptions): Promise<TestIdp> {
  const accounts = new Map<string, IdpAccount>();
  const clientId = 'parley-test';
  const clientSecret = crypto.randomBytes(24).toString('hex');
  const signing = rsaJwk('signing-key');
  const forged = { keys: [publicPart(rsaJwk('signing-key'))] };

  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => {
    if (opts.forgedJwks && req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify(forged));
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const configuration: Configuration = {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris,
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [signing] },
    cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    // Set, so that the provider does not print a notice per kind on first use.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    conformIdTokenClaims: !opts.idTokenClaims,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
  };
  const provider = new Provider(issuer, configuration);
  handler = provider.callback();
  return {
    issuer, clientId, clientSecret, accounts,
    oidc: (overrides = {}) => ({ issuer, clientId, clientSecret, name: 'Test IdP', icon: null, autoSignup: false, trustEmail: false, ...overrides }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface Page {
  url: URL;
  status: number;
  location: string | undefined;
  body: string;
  /** The cookies this answer set (name → value; '' for one cleared). */
  setCookies: Map<string, string>;
}

const parleyHost = (u: URL) => u.hostname === HOST || u.hostname.endsWith(`.${HOST}`);

/** A browser: one cookie jar per host, every request one hop. Parley is reached by inject, the provider over HTTP. */
export class Browser {
  readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly t: TestApp, readonly userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0') {}

  private cookiesFor(host: string): Map<string, string> {
    let c = this.jar.get(host);
    if (!c) this.jar.set(host, (c = new Map()));
    return c;
  }

  private cookieHeader(host: string): string {
    return [...this.cookiesFor(host)].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: 'GET' | 'POST', url: string | URL, form?: Record<string, string>): Promise<Page> {
    const u = new URL(url);
    const jar = this.cookiesFor(u.host);
    const setCookies = new Map<string, string>();
    let status: number;
    let location: string | undefined;
    let body: string;
    if (parleyHost(u)) {
      const res = await this.t.app.http.inject({
        method, url: u.pathname + u.search,
        headers: { host: u.host, 'user-agent': this.userAgent, ...(jar.size ? { cookie: this.cookieHeader(u.host) } : {}) },
      });
      status = res.statusCode;
      location = res.headers.location as string | undefined;
      body = res.body;
      for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
        const gone = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now());
        setCookies.set(c.name, gone ? '' : c.value);
      }
    } else {
      const res = await fetch(u, {
        method, redirect: 'manual',
        headers: { 'user-agent': this.userAgent, ...(jar.size ? { cookie: this.cookieHeader(u.host) } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      status = res.status;
      location = res.headers.get('location') ?? undefined;
      body = await res.text();
      for (const line of res.headers.getSetCookie()) {
        const [pair, ...attrs] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq).trim();
        const value = pair!.slice(eq + 1).trim();
        const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now());
        setCookies.set(name, value === '' || expired ? '' : value);
      }
    }
    for (const [k, v] of setCookies) if (v === '') jar.delete(k); else jar.set(k, v);
    return { url: u, status, location, body, setCookies };
  }

  get(url: string | URL): Promise<Page> {
    return this.request('GET', url);
  }
}

export interface SignInOptions {
  /** The provider's login (the account's subject). */
  login: string;
  /** Changes the authorization URL before the browser follows it (what an attacker in the middle could do). */
  editAuthUrl?: (u: URL) => void;
  /** Cancel at the provider's login page instead of signing in. */
  cancel?: boolean;
  /** Stop at the redirect back to Parley without following it: answers that URL. */
  stopBeforeCallback?: boolean;
}

/** What the run ended with: Parley's answer at its redirect URI, and that URL. */
export interface SignInRun {
  start: Page;
  callbackUrl: URL | undefined;
  callback: Page | undefined;
}

/**
 * Clicks Parley's button at `startUrl` and walks the provider's pages: its login form (any
 * password; the login picks the account), its consent form, and the way back to Parley.
 */
export async function signInThroughIdp(b: Browser, startUrl: string, o: SignInOptions): Promise<SignInRun> {
  const start = await b.get(startUrl);
  if (start.status !== 302 || !start.location) return { start, callbackUrl: undefined, callback: undefined };
  let next = new URL(start.location);
  o.editAuthUrl?.(next);
  for (let hops = 0; hops < 20; hops++) {
    if (parleyHost(next)) {
      assert.equal(next.pathname, '/complete/oidc/', 'the provider sends the browser to the redirect URI');
      if (o.stopBeforeCallback) return { start, callbackUrl: next, callback: undefined };
      return { start, callbackUrl: next, callback: await b.get(next) };
    }
    const page = await b.get(next);
    if (page.status >= 300 && page.status < 400 && page.location) {
      next = new URL(page.location, next);
      continue;
    }
    assert.equal(page.status, 200, `the provider's page ${next.pathname}: ${page.body.slice(0, 500)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(page.body)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(prompt && action, `a form on the provider's page ${next.pathname}`);
    if (o.cancel) {
      const abort = /href="([^"]*\/abort)"/.exec(page.body)?.[1];
      assert.ok(abort, 'the provider offers to cancel');
      next = new URL(abort, next);
      continue;
    }
    const sent = await b.request('POST', new URL(action, next), prompt === 'login' ? { prompt, login: o.login, password: 'anything' } : { prompt });
    assert.ok(sent.location, `the provider's ${prompt} form redirects: ${sent.status} ${sent.body.slice(0, 300)}`);
    next = new URL(sent.location, next);
  }
  throw new Error('the provider never sent the browser back to Parley');
}
