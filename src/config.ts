import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFeatureLevel } from './lib/version.js';
import { isValidEmail } from './lib/email.js';
import { parseSsoConfig, type SsoConfig } from './lib/sso-config.js';
import { DEFAULT_RATE_LIMIT_RULES, parseRateLimitRules, type RateLimitRules } from './ratelimit/rules.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL connection URL; SQLite under dataDir when absent. */
  databaseUrl: string | undefined;
  /**
   * Redis URL: with a PostgreSQL databaseUrl it makes this process one node of a cluster
   * (events, queues, cache retirement and budgets shared through Redis). Absent: one process.
   */
  redisUrl: string | undefined;
  /**
   * How long the cluster's bus keeps its entries, and how many at most: a queue whose
   * node died can be rebuilt elsewhere only from a checkpoint still within them.
   */
  clusterBusRetentionSecs: number;
  clusterBusMaxEntries: number;
  /** The prefix of every key this cluster keeps in Redis: several clusters may share one Redis. */
  clusterName: string;
  /** Public base URL, e.g. http://chat.example.com; realm_uri derives from it. */
  externalUrl: string;
  /**
   * Zulip's FAKE_EMAIL_DOMAIN: the domain of made-up addresses (bots, imported people without
   * one) where the organization's own host makes none, as on an IP address (realmEmailDomain).
   */
  fakeEmailDomain: string | undefined;
  orgName: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  logLevel: string;
  /** Heartbeat after this many ms of silence on a long poll (Zulip: 45-55 s). */
  heartbeatMs: number;
  /** Idle queue lifetime in seconds (Zulip default 600). */
  queueTimeoutSecs: number;
  /** SMTP URL for outgoing mail; without one, mail is written to <dataDir>/outbox. */
  smtpUrl: string | undefined;
  /** The From address of Parley's mail. */
  mailFrom: string;
  /**
   * Zulip's push notification service (the "bouncer", e.g. https://push.zulipchat.com), which
   * holds the Firebase and Apple credentials the Zulip apps need; unset: no mobile push.
   */
  pushBouncerUrl: string | undefined;
  /** Pushes say "New message" instead of the content, which then never passes through Apple's or Google's servers. */
  pushRedactContent: boolean;
  /**
   * The Zulip API feature level reported (server_settings, register, restart events):
   * 122, the spec's interface, or LATEST_FEATURE_LEVEL (src/lib/version.ts). Requests of
   * every level are accepted either way; answers whose shape a level changed follow it.
   */
  featureLevel: number;
  /** Largest file POST /user_uploads takes, in MiB (Zulip's MAX_FILE_UPLOAD_SIZE; register reports it). */
  maxFileUploadSizeMib: number;
  /**
   * Uploads go to this S3-compatible bucket when set (credentials from the standard AWS
   * environment variables), to <dataDir>/uploads otherwise: several server processes
   * cannot share a local disk.
   */
  s3Bucket: string | undefined;
  /** The object store's URL when it is not AWS itself (MinIO, Ceph, R2...): path-style addressing then. */
  s3Endpoint: string | undefined;
  s3Region: string | undefined;
  /** Characters (keys and values) a user may keep in bot storage: Zulip's USER_STATE_SIZE_LIMIT. */
  botStorageLimit: number;
  /** How long a web sign-in lasts, in seconds (the session cookie's Max-Age and the row's expiry). */
  sessionLifetimeSecs: number;
  /** The built web app (Vite's output): index.html and assets/. */
  webDir: string;
  /** Single sign-on (OpenID Connect, SAML, LDAP) and whether passwords still sign in: src/lib/sso-config.ts. */
  sso: SsoConfig;
  /** Request budgets on (Zulip's RATE_LIMITING); off for benchmarks and most tests. */
  rateLimiting: boolean;
  /** The budgets by domain (src/ratelimit/rules.ts): Zulip's defaults, overridden by PARLEY_RATE_LIMITS. */
  rateLimits: RateLimitRules;
  /**
   * Which proxies' X-Forwarded-For to believe for the client's address (Fastify's
   * trustProxy): `true` (any), or addresses/CIDRs. Behind a reverse proxy this
   * must be set, or every client shares the proxy's address and its budgets.
   */
  trustProxy: boolean | string[];
  /**
   * Argon2id cost of new password hashes: memory in KiB and passes. The defaults are
   * OWASP's minimum (19 MiB, 2 passes, 1 lane); lower only for tests.
   */
  passwordHashMemoryKib: number;
  passwordHashTimeCost: number;
  /**
   * Page cache of each SQLite connection (the writer thread's and the readers'), in MiB.
   * 64 keeps a send's recipient rows on hot index pages; `parley import` uses 16 to stay
   * within its memory bound (its rows land on few pages at a time).
   */
  sqliteCacheMib: number;
  /** How long one outgoing-webhook call may take before it counts as timed out (Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS, 10 s). */
  outgoingWebhookTimeoutMs: number;
  /**
   * The pause before the first retry of a call that timed out or could not connect; it
   * doubles for each later one. Zulip requeues at the tail of its RabbitMQ queue; an
   * in-process queue retrying at once would spin on an endpoint that refuses at once.
   */
  outgoingWebhookRetryDelayMs: number;
  /** Outgoing-webhook calls in flight at once, over all bots. */
  outgoingWebhookConcurrency: number;
  /** Deliveries accepted and not yet finished (waiting, running, or between tries) before new ones are dropped. */
  outgoingWebhookBacklog: number;
  /** At shutdown, how long calls in flight may still finish before they are cut off. */
  outgoingWebhookShutdownGraceMs: number;
  /**
   * Where Prometheus scrapes GET /metrics: a listener of its own on this address (port 0:
   * any free one, for tests). With metricsToken unset as well, there are no metrics at all.
   */
  metricsAddr: MetricsAddr | undefined;
  /** GET /metrics on the main port (and the metrics address) needs `Authorization: Bearer <this>`. */
  metricsToken: string | undefined;
  /**
   * The periodic background jobs (src/jobs/: the storage sweep, ...) run in this process.
   * Off for benchmarks and tests that want none; in a cluster, nodes with it off leave the
   * jobs to the others (each job runs on one node at a time anyway).
   */
  backgroundJobs: boolean;
  /**
   * Days an upload no message, draft or scheduled message links is kept before the storage
   * sweep deletes it (Zulip's delete_old_unclaimed_attachments: 3 weeks). A file unlinked by
   * an edit or a deletion is counted from its upload, not from its unlinking.
   */
  unlinkedUploadGraceDays: number;
  /** Days archived messages (retention, src/actions/retention.ts) are kept before the purge deletes them: Zulip's ARCHIVED_DATA_VACUUMING_DELAY_DAYS, 30. */
  archiveKeepDays: number;
  /**
   * Days without a visit after which a person is soft-deactivated (Zulip's long_term_idle;
   * src/actions/soft-deactivation.ts; Zulip's soft_deactivate_users --inactive-for, 28); 0 turns it off.
   */
  softDeactivationDays: number;
}

export interface MetricsAddr {
  host: string;
  port: number;
}

/** PARLEY_METRICS_ADDR: `host:port`, `[ipv6]:port`, or `:port` (loopback). */
export function parseMetricsAddr(v: string | undefined): MetricsAddr | undefined {
  const s = v?.trim() ?? '';
  if (s === '') return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]*)):(\d{1,5})$/.exec(s);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new Error(`PARLEY_METRICS_ADDR must be host:port (e.g. 127.0.0.1:9464), got '${s}'`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** A bearer token short enough to guess would open the metrics to anyone; refused at start. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

function checkMetricsToken(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(`PARLEY_METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 24)`);
  }
  return token;
}

export type ConfigOverrides = Partial<Config>;

function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${v}'`);
  return n;
}

function envBool(name: string, fallback: boolean): boolean {
  const v = process.env[name]?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no'].includes(v)) return false;
  throw new Error(`${name} must be true or false, got '${v}'`);
}

/**
 * PARLEY_TRUST_PROXY: `true`/`false`, or a comma-separated list of addresses and CIDRs
 * (Fastify refuses to trust by hop count alone: the nearest peer could be anyone).
 */
export function parseTrustProxy(v: string | undefined): boolean | string[] {
  const s = v?.trim() ?? '';
  if (s === '' || s === 'false') return false;
  if (s === 'true') return true;
  if (/^\d+$/.test(s)) throw new Error(`PARLEY_TRUST_PROXY: name the proxies (addresses or CIDRs) or 'true', not a hop count ('${s}')`);
  return s.split(',').map((x) => x.trim()).filter(Boolean);
}

function checkFakeEmailDomain(domain: string | undefined): string | undefined {
  if (domain === undefined) return undefined;
  const d = domain.trim().toLowerCase();
  if (!isValidEmail(`bot@${d}`)) throw new Error(`PARLEY_FAKE_EMAIL_DOMAIN: 'bot@${d}' is not a valid email address; name a domain such as chat.example.com`);
  return d;
}

export function loadConfig(overrides: ConfigOverrides = {}): Config {
  const host = overrides.host ?? process.env.PARLEY_HOST ?? '127.0.0.1';
  const port = overrides.port ?? envInt('PARLEY_PORT', 9991);
  const externalUrl = (overrides.externalUrl ?? process.env.PARLEY_EXTERNAL_URL ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, '');
  return {
    host,
    port,
    dataDir: path.resolve(overrides.dataDir ?? process.env.PARLEY_DATA_DIR ?? './data'),
    databaseUrl: overrides.databaseUrl ?? (process.env.PARLEY_DATABASE_URL || undefined),
    redisUrl: overrides.redisUrl ?? (process.env.PARLEY_REDIS_URL || undefined),
    clusterBusRetentionSecs: overrides.clusterBusRetentionSecs ?? envInt('PARLEY_CLUSTER_BUS_RETENTION_SECS', 900),
    clusterBusMaxEntries: overrides.clusterBusMaxEntries ?? envInt('PARLEY_CLUSTER_BUS_MAX_ENTRIES', 200_000),
    clusterName: overrides.clusterName ?? process.env.PARLEY_CLUSTER_NAME ?? 'parley',
    externalUrl,
    fakeEmailDomain: checkFakeEmailDomain(overrides.fakeEmailDomain ?? (process.env.PARLEY_FAKE_EMAIL_DOMAIN || undefined)),
    orgName: overrides.orgName ?? process.env.PARLEY_ORG_NAME ?? 'Parley',
    adminEmail: overrides.adminEmail ?? (process.env.PARLEY_ADMIN_EMAIL || undefined),
    adminPassword: overrides.adminPassword ?? (process.env.PARLEY_ADMIN_PASSWORD || undefined),
    logLevel: overrides.logLevel ?? process.env.PARLEY_LOG_LEVEL ?? 'info',
    heartbeatMs: overrides.heartbeatMs ?? envInt('PARLEY_HEARTBEAT_MS', 45_000 + Math.floor(Math.random() * 10_000)),
    queueTimeoutSecs: overrides.queueTimeoutSecs ?? envInt('PARLEY_QUEUE_TIMEOUT_SECS', 600),
    smtpUrl: overrides.smtpUrl ?? (process.env.PARLEY_SMTP_URL || undefined),
    mailFrom: overrides.mailFrom ?? process.env.PARLEY_MAIL_FROM ?? `Parley <noreply@${new URL(externalUrl).hostname}>`,
    pushBouncerUrl: overrides.pushBouncerUrl ?? (process.env.PARLEY_PUSH_BOUNCER_URL || undefined),
    pushRedactContent: overrides.pushRedactContent ?? process.env.PARLEY_PUSH_REDACT_CONTENT === 'true',
    featureLevel: overrides.featureLevel ?? parseFeatureLevel(process.env.PARLEY_FEATURE_LEVEL),
    maxFileUploadSizeMib: overrides.maxFileUploadSizeMib ?? envInt('PARLEY_MAX_FILE_UPLOAD_SIZE_MIB', 25),
    s3Bucket: overrides.s3Bucket ?? (process.env.PARLEY_S3_BUCKET || undefined),
    s3Endpoint: overrides.s3Endpoint ?? (process.env.PARLEY_S3_ENDPOINT || undefined),
    s3Region: overrides.s3Region ?? (process.env.PARLEY_S3_REGION || undefined),
    botStorageLimit: overrides.botStorageLimit ?? envInt('PARLEY_BOT_STORAGE_LIMIT', 10_000_000),
    sessionLifetimeSecs: overrides.sessionLifetimeSecs ?? envInt('PARLEY_SESSION_LIFETIME_SECS', 14 * 86_400),
    // web/dist beside src/ (tsx) or dist/ (the build): the package's own folder either way.
    webDir: path.resolve(overrides.webDir ?? process.env.PARLEY_WEB_DIR ?? fileURLToPath(new URL('../web/dist', import.meta.url))),
    sso: overrides.sso ?? parseSsoConfig(),
    rateLimiting: overrides.rateLimiting ?? envBool('PARLEY_RATE_LIMITING', true),
    rateLimits: overrides.rateLimits ?? parseRateLimitRules(process.env.PARLEY_RATE_LIMITS ?? '', DEFAULT_RATE_LIMIT_RULES),
    trustProxy: overrides.trustProxy ?? parseTrustProxy(process.env.PARLEY_TRUST_PROXY),
    passwordHashMemoryKib: overrides.passwordHashMemoryKib ?? envInt('PARLEY_PASSWORD_HASH_MEMORY_KIB', 19_456),
    passwordHashTimeCost: overrides.passwordHashTimeCost ?? envInt('PARLEY_PASSWORD_HASH_TIME_COST', 2),
    sqliteCacheMib: Math.max(1, overrides.sqliteCacheMib ?? envInt('PARLEY_SQLITE_CACHE_MIB', 64)),
    outgoingWebhookTimeoutMs: overrides.outgoingWebhookTimeoutMs ?? envInt('PARLEY_OUTGOING_WEBHOOK_TIMEOUT_MS', 10_000),
    outgoingWebhookRetryDelayMs: overrides.outgoingWebhookRetryDelayMs ?? envInt('PARLEY_OUTGOING_WEBHOOK_RETRY_DELAY_MS', 1_000),
    outgoingWebhookConcurrency: Math.max(1, overrides.outgoingWebhookConcurrency ?? envInt('PARLEY_OUTGOING_WEBHOOK_CONCURRENCY', 16)),
    outgoingWebhookBacklog: Math.max(1, overrides.outgoingWebhookBacklog ?? envInt('PARLEY_OUTGOING_WEBHOOK_BACKLOG', 1_000)),
    outgoingWebhookShutdownGraceMs: overrides.outgoingWebhookShutdownGraceMs ?? envInt('PARLEY_OUTGOING_WEBHOOK_SHUTDOWN_GRACE_MS', 3_000),
    metricsAddr: 'metricsAddr' in overrides ? overrides.metricsAddr : parseMetricsAddr(process.env.PARLEY_METRICS_ADDR),
    metricsToken: checkMetricsToken('metricsToken' in overrides ? overrides.metricsToken : process.env.PARLEY_METRICS_TOKEN),
    backgroundJobs: overrides.backgroundJobs ?? envBool('PARLEY_BACKGROUND_JOBS', true),
    unlinkedUploadGraceDays: overrides.unlinkedUploadGraceDays ?? envInt('PARLEY_UNLINKED_UPLOAD_GRACE_DAYS', 21),
    archiveKeepDays: overrides.archiveKeepDays ?? envInt('PARLEY_ARCHIVE_KEEP_DAYS', 30),
    softDeactivationDays: overrides.softDeactivationDays ?? envInt('PARLEY_SOFT_DEACTIVATION_DAYS', 28),
  };
}
