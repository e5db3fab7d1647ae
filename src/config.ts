import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL connection URL; SQLite under dataDir when absent. */
  databaseUrl: string | undefined;
  /** Public base URL, e.g. http://chat.example.com; realm_uri derives from it. */
  externalUrl: string;
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
  /** How long a web sign-in lasts, in seconds (the session cookie's Max-Age and the row's expiry). */
  sessionLifetimeSecs: number;
  /** The built web app (Vite's output): index.html and assets/. */
  webDir: string;
}

export type ConfigOverrides = Partial<Config>;

function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${v}'`);
  return n;
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
    externalUrl,
    orgName: overrides.orgName ?? process.env.PARLEY_ORG_NAME ?? 'Parley',
    adminEmail: overrides.adminEmail ?? (process.env.PARLEY_ADMIN_EMAIL || undefined),
    adminPassword: overrides.adminPassword ?? (process.env.PARLEY_ADMIN_PASSWORD || undefined),
    logLevel: overrides.logLevel ?? process.env.PARLEY_LOG_LEVEL ?? 'info',
    heartbeatMs: overrides.heartbeatMs ?? envInt('PARLEY_HEARTBEAT_MS', 45_000 + Math.floor(Math.random() * 10_000)),
    queueTimeoutSecs: overrides.queueTimeoutSecs ?? envInt('PARLEY_QUEUE_TIMEOUT_SECS', 600),
    smtpUrl: overrides.smtpUrl ?? (process.env.PARLEY_SMTP_URL || undefined),
    mailFrom: overrides.mailFrom ?? process.env.PARLEY_MAIL_FROM ?? `Parley <noreply@${new URL(externalUrl).hostname}>`,
    maxFileUploadSizeMib: overrides.maxFileUploadSizeMib ?? envInt('PARLEY_MAX_FILE_UPLOAD_SIZE_MIB', 25),
    s3Bucket: overrides.s3Bucket ?? (process.env.PARLEY_S3_BUCKET || undefined),
    s3Endpoint: overrides.s3Endpoint ?? (process.env.PARLEY_S3_ENDPOINT || undefined),
    s3Region: overrides.s3Region ?? (process.env.PARLEY_S3_REGION || undefined),
    sessionLifetimeSecs: overrides.sessionLifetimeSecs ?? envInt('PARLEY_SESSION_LIFETIME_SECS', 14 * 86_400),
    // web/dist beside src/ (tsx) or dist/ (the build): the package's own folder either way.
    webDir: path.resolve(overrides.webDir ?? process.env.PARLEY_WEB_DIR ?? fileURLToPath(new URL('../web/dist', import.meta.url))),
  };
}
