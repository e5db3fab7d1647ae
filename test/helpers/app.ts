import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { InjectOptions } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import type { MissedMessageSenders } from '../../src/notifications/senders.js';
import { compareIds } from '../../src/cluster/stream-ids.js';
import type { ConfigOverrides } from '../../src/config.js';
import { transact } from '../../src/actions/transaction.js';
import { doCreateUser } from '../../src/actions/user-create.js';
import { doCreateBot } from '../../src/actions/bot-create.js';
import { doCreateRealm } from '../../src/actions/realm-create.js';
import { ensureDefaultRealm } from '../../src/cli/bootstrap.js';
import { realms } from '../../src/store/repos/realms.js';
import { Role } from '../../src/lib/roles.js';
import type { RealmRow, UserRow } from '../../src/store/rows.js';
import type { RedisBus } from '../../src/cluster/redis-bus.js';
import { parseFeatureLevel } from '../../src/lib/version.js';

export const ENGINE = process.env.PARLEY_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
/**
 * The suite's two-node run (test/run.ts): each test's server is two cluster nodes on one
 * database and Redis. Queue requests go to the first (where tests look at queues), every
 * other request to the second, so each event a test waits for crosses the bus.
 */
export const TWO_NODES = ENGINE === 'postgres' && process.env.PARLEY_TEST_NODES === '2' && !!process.env.PARLEY_TEST_REDIS_URL;
export const HOST = 'parley.test';
/** The level the suite's servers report: npm test runs the suite at 122 and again at `latest` (PARLEY_FEATURE_LEVEL). */
export const FEATURE_LEVEL = parseFeatureLevel(process.env.PARLEY_FEATURE_LEVEL);
export const OWNER_EMAIL = 'owner@parley.test';
export const OWNER_PASSWORD = 'owner-password-123';

export interface TestUser {
  id: number;
  email: string;
  apiKey: string;
  row: UserRow;
}

export interface ApiResult {
  status: number;
  body: any;
  headers?: Record<string, string | string[] | number | undefined>;
}

export interface CallOpts {
  as?: TestUser | null;
  /** Sent as the query string (GET) or form body (other methods). */
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  host?: string;
  headers?: Record<string, string>;
  /** The client's address as the server sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

/** What createUser takes: a member named `User N` with email `userN@parley.test` unless told otherwise. */
export interface UserSpec {
  role?: number;
  name?: string;
  email?: string;
  password?: string;
}

export interface TestApp {
  app: App;
  realm: RealmRow;
  owner: TestUser;
  api(method: string, url: string, opts?: CallOpts): Promise<ApiResult>;
  createUser(opts?: UserSpec): Promise<TestUser>;
  /** Creates one user per key, in the keys' order, and answers them by the same keys. */
  createUsers<K extends string>(specs: Record<K, UserSpec>): Promise<Record<K, TestUser>>;
  /** A generic bot (type 1) owned by `owner`, made by the action as the bots endpoint makes it. */
  createBot(owner: TestUser, names: { fullName: string; shortName: string }): Promise<TestUser>;
  /** Serves real HTTP on a free loopback port; answers the base URL (`http://127.0.0.1:PORT`). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The people most tests talk about, under the names their messages mention. */
export const PEOPLE = {
  alice: { name: 'Alice Smith' },
  bob: { name: 'Bob Jones' },
  carol: { name: 'Carol King' },
  dave: { name: 'Dave Long' },
  guest: { name: 'Gus Guest', role: Role.GUEST },
} satisfies Record<string, UserSpec>;

/** Some of PEOPLE, in the order named: `t.createUsers(people('alice', 'bob'))`. */
export function people<K extends keyof typeof PEOPLE>(...names: K[]): Record<K, UserSpec> {
  return Object.fromEntries(names.map((n) => [n, PEOPLE[n]])) as Record<K, UserSpec>;
}

/** One user of each kind the permission tests compare: an administrator, two members and a guest. */
export const ROLES = {
  admin: { role: Role.ADMINISTRATOR },
  member: {},
  other: {},
  guest: { role: Role.GUEST },
} satisfies Record<string, UserSpec>;

/** A user row (made by an action: a bot, another organization's owner) as tests call the API with it. */
export function asTestUser(row: UserRow): TestUser {
  return { id: row.id, email: row.email, apiKey: row.api_key, row };
}

let counter = 0;

/** Encodes parameters the Zulip way: strings raw, everything else JSON. */
export function encodeParams(params: Record<string, unknown>): string {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    usp.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return usp.toString();
}

export function basic(email: string, key: string): string {
  return 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64');
}

export async function createPgDatabase(): Promise<string> {
  const base = process.env.PARLEY_TEST_PG_URL!;
  const name = `parley_t_${process.pid}_${Date.now()}_${counter++}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A server on a fresh database with its default organization. `welcome: true` gives that
 * organization what a real server's has (#general, the Welcome Bot's messages to every new
 * user); by default tests get an empty one, so that their counts of streams and messages
 * start from nothing. `notificationSenders`: record what the notification worker would hand
 * the mail and push senders (test/notifications/recorder.ts) instead of sending.
 */
export async function testApp(overrides: ConfigOverrides = {}, opts: { welcome?: boolean; notificationSenders?: MissedMessageSenders } = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  const databaseUrl = ENGINE === 'postgres' ? await createPgDatabase() : undefined;
  // Each test's cluster keeps its own keys in the run's one Redis.
  const cluster: ConfigOverrides = TWO_NODES ? { redisUrl: process.env.PARLEY_TEST_REDIS_URL, clusterName: `t${process.pid}-${counter++}` } : {};
  const config: ConfigOverrides = {
    dataDir, databaseUrl, logLevel: 'silent', externalUrl: `http://${HOST}`,
    // Tests hammer the API: budgets off unless a test turns them on (test/ratelimit/).
    adminEmail: OWNER_EMAIL, adminPassword: OWNER_PASSWORD, orgName: 'Parley Test', rateLimiting: false, ...cluster, ...overrides,
  };
  const deps = { notificationSenders: opts.notificationSenders };
  const app = await buildApp(config, deps);
  const peerDir = TWO_NODES ? fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-peer-')) : undefined;
  const peer = peerDir && config.redisUrl ? await buildApp({ ...config, dataDir: peerDir }, deps) : undefined;
  const queuePaths = /^\/(api\/v1|json)\/(register|events)(\/|\?|$)/;
  /** Until every node has heard everything published so far: what a test does next sees it on any node. */
  const settle = async (): Promise<void> => {
    if (!peer) return;
    const buses = [app, peer].map((a) => a.ctx.bus as RedisBus);
    await Promise.all(buses.map((b) => b.settled()));
    const newest = buses.map((b) => b.lastAppended).sort((x, y) => compareIds(y, x))[0]!;
    await Promise.all(buses.map((b) => b.heard(newest)));
  };
  await ensureDefaultRealm(app.ctx, { welcome: opts.welcome ?? false });
  const realm = (await realms.findByStringId(app.ctx.store.db, ''))!;
  const ownerRow = (await app.ctx.store.db.selectFrom('users').selectAll().where('email', '=', OWNER_EMAIL).executeTakeFirstOrThrow());
  const owner = asTestUser(ownerRow);
  let n = 0;

  const api = async (method: string, url: string, opts: CallOpts = {}): Promise<ApiResult> => {
    const as = opts.as === undefined ? owner : opts.as;
    const headers: Record<string, string> = { host: opts.host ?? HOST, ...(opts.headers ?? {}) };
    if (as) headers.authorization = basic(as.email, as.apiKey);
    const inject: InjectOptions = { method: method as InjectOptions['method'], url, headers, ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}) };
    const enc = opts.params ? encodeParams(opts.params) : '';
    const q = opts.query ? encodeParams(opts.query) : '';
    if (method === 'GET') {
      const qs = [enc, q].filter(Boolean).join('&');
      if (qs) inject.url = `${url}${url.includes('?') ? '&' : '?'}${qs}`;
    } else {
      if (q) inject.url = `${url}${url.includes('?') ? '&' : '?'}${q}`;
      if (opts.params) {
        inject.payload = enc;
        headers['content-type'] = 'application/x-www-form-urlencoded';
      }
    }
    await settle();
    const res = await (peer && !queuePaths.test(url) ? peer : app).http.inject(inject);
    await settle();
    let body: unknown;
    try {
      body = res.json();
    } catch {
      body = res.body;
    }
    return { status: res.statusCode, body, headers: res.headers };
  };

  const createUser: TestApp['createUser'] = async (o = {}) => {
    n += 1;
    const email = o.email ?? `user${n}@${HOST}`;
    const row = await transact(app.ctx, (tx) => doCreateUser(tx, realm, {
      email, fullName: o.name ?? `User ${n}`, password: o.password, role: o.role ?? Role.MEMBER,
    }));
    return asTestUser(row);
  };

  async function createUsers<K extends string>(specs: Record<K, UserSpec>): Promise<Record<K, TestUser>> {
    const out = {} as Record<K, TestUser>;
    for (const key of Object.keys(specs) as K[]) out[key] = await createUser(specs[key]);
    return out;
  }

  return {
    app, realm, owner, api, createUser, createUsers,
    createBot: async (botOwner, names) =>
      asTestUser(await transact(app.ctx, (tx) => doCreateBot(tx, app.ctx.config, realm, botOwner.row, { ...names, botType: 1 }))),
    listen: () => app.http.listen({ port: 0, host: '127.0.0.1' }),
    close: async () => {
      await peer?.close();
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (peerDir) fs.rmSync(peerDir, { recursive: true, force: true });
    },
  };
}

/** A second organization, Acme (`acme` at ACME_HOST), and its owner: ACME_OWNER_EMAIL with ACME_OWNER_PASSWORD. */
export const ACME_HOST = `acme.${HOST}`;
export const ACME_OWNER_EMAIL = 'boss@acme.test';
export const ACME_OWNER_PASSWORD = 'pw-123456';

export async function createAcme(t: TestApp, opts: { welcome?: boolean } = {}): Promise<{ realm: RealmRow; owner: TestUser }> {
  const { realm, owner } = await transact(t.app.ctx, (tx) =>
    doCreateRealm(tx, { stringId: 'acme', name: 'Acme', ownerEmail: ACME_OWNER_EMAIL, ownerPassword: ACME_OWNER_PASSWORD, welcome: opts.welcome ?? false }));
  return { realm, owner: asTestUser(owner) };
}

/**
 * A client over real HTTP, as Zulip's clients call the API: form bodies, query strings
 * for GET and DELETE, basic auth (none when `as` is null).
 */
export function httpClient(base: () => string) {
  return async (as: TestUser | null, method: string, url: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> => {
    const usp = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) usp.append(k, typeof v === 'string' ? v : JSON.stringify(v));
    const qs = method === 'GET' || method === 'DELETE' ? `?${usp}` : '';
    const res = await fetch(`${base()}/api/v1${url}${qs}`, {
      method,
      headers: { ...(as ? { authorization: basic(as.email, as.apiKey) } : {}), ...(qs ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(qs ? {} : { body: usp.toString() }),
    });
    return { status: res.status, body: await res.json() };
  };
}
