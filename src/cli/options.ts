import type { Command } from 'commander';
import { parseMetricsAddr, parseTrustProxy, type ConfigOverrides } from '../config.js';
import { parseRateLimitRules } from '../ratelimit/rules.js';
import { parseFeatureLevel } from '../lib/version.js';

/** Where the data lives: every command that opens the store takes these. */
export function storeOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory (PARLEY_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL URL; SQLite when absent (PARLEY_DATABASE_URL)')
    .option('--redis-url <url>', 'Redis URL: with a PostgreSQL URL, makes this process a cluster node (PARLEY_REDIS_URL)')
    .option('--external-url <url>', 'public base URL (PARLEY_EXTERNAL_URL)');
}

export function serverOptions(cmd: Command): Command {
  return storeOptions(cmd)
    .option('--host <host>', 'address to listen on (PARLEY_HOST)')
    .option('--port <port>', 'port to listen on (PARLEY_PORT)', (v) => Number(v))
    .option('--org-name <name>', 'name of the default organization (PARLEY_ORG_NAME)')
    .option('--admin-email <email>', 'owner of the default organization (PARLEY_ADMIN_EMAIL)')
    .option('--admin-password <password>', 'owner password on first start (PARLEY_ADMIN_PASSWORD)')
    .option('--smtp-url <url>', 'SMTP server for outgoing mail; without one, mail goes to <data-dir>/outbox (PARLEY_SMTP_URL)')
    .option('--mail-from <address>', 'From address of outgoing mail (PARLEY_MAIL_FROM)')
    .option('--feature-level <level>', 'the Zulip API feature level reported: 122 (the default) or latest (PARLEY_FEATURE_LEVEL)')
    .option('--max-file-upload-size-mib <n>', 'largest file upload in MiB, default 25 (PARLEY_MAX_FILE_UPLOAD_SIZE_MIB)', (v) => Number(v))
    .option('--s3-bucket <name>', 'store uploads in this S3-compatible bucket instead of <data-dir>/uploads (PARLEY_S3_BUCKET)')
    .option('--s3-endpoint <url>', 'the object store URL when not AWS (PARLEY_S3_ENDPOINT)')
    .option('--s3-region <region>', 'the bucket region (PARLEY_S3_REGION)')
    .option('--no-rate-limiting', 'turn request budgets off, e.g. for benchmarks (PARLEY_RATE_LIMITING=false)')
    .option('--rate-limits <spec>', "budgets by domain, 'domain=seconds:requests[,...][;domain=...]' (PARLEY_RATE_LIMITS)")
    .option('--trust-proxy <spec>', 'believe X-Forwarded-For from these proxies: true, or addresses/CIDRs (PARLEY_TRUST_PROXY)')
    .option('--password-hash-memory-kib <n>', 'Argon2id memory per password hash, default 19456 (PARLEY_PASSWORD_HASH_MEMORY_KIB)', (v) => Number(v))
    .option('--password-hash-time-cost <n>', 'Argon2id passes per password hash, default 2 (PARLEY_PASSWORD_HASH_TIME_COST)', (v) => Number(v))
    .option('--metrics-addr <host:port>', 'serve Prometheus metrics on a listener of their own at this address (PARLEY_METRICS_ADDR)')
    .option('--no-background-jobs', 'run no periodic jobs (storage sweep, ...) in this process, e.g. for benchmarks (PARLEY_BACKGROUND_JOBS=false)')
    .option('--unlinked-upload-grace-days <n>', 'days an upload nothing links is kept before the storage sweep deletes it, default 21 (PARLEY_UNLINKED_UPLOAD_GRACE_DAYS)', (v) => Number(v))
    .option('--archive-keep-days <n>', 'days archived (expired) messages are kept before the purge, default 30 (PARLEY_ARCHIVE_KEEP_DAYS)', (v) => Number(v));
}

export function overridesFrom(opts: Record<string, unknown>): ConfigOverrides {
  const o: ConfigOverrides = {};
  if (opts.host) o.host = String(opts.host);
  if (opts.port !== undefined) o.port = Number(opts.port);
  if (opts.dataDir) o.dataDir = String(opts.dataDir);
  if (opts.databaseUrl) o.databaseUrl = String(opts.databaseUrl);
  if (opts.redisUrl) o.redisUrl = String(opts.redisUrl);
  if (opts.externalUrl) o.externalUrl = String(opts.externalUrl);
  if (opts.orgName) o.orgName = String(opts.orgName);
  if (opts.adminEmail) o.adminEmail = String(opts.adminEmail);
  if (opts.adminPassword) o.adminPassword = String(opts.adminPassword);
  if (opts.smtpUrl) o.smtpUrl = String(opts.smtpUrl);
  if (opts.mailFrom) o.mailFrom = String(opts.mailFrom);
  if (opts.featureLevel !== undefined) o.featureLevel = parseFeatureLevel(String(opts.featureLevel));
  if (opts.maxFileUploadSizeMib !== undefined) o.maxFileUploadSizeMib = Number(opts.maxFileUploadSizeMib);
  if (opts.s3Bucket) o.s3Bucket = String(opts.s3Bucket);
  if (opts.s3Endpoint) o.s3Endpoint = String(opts.s3Endpoint);
  if (opts.s3Region) o.s3Region = String(opts.s3Region);
  // Commander sets `rateLimiting` true by default for a --no- flag: only its explicit false counts.
  if (opts.rateLimiting === false) o.rateLimiting = false;
  if (opts.rateLimits !== undefined) o.rateLimits = parseRateLimitRules(String(opts.rateLimits), parseRateLimitRules(process.env.PARLEY_RATE_LIMITS ?? ''));
  if (opts.trustProxy !== undefined) o.trustProxy = parseTrustProxy(String(opts.trustProxy));
  if (opts.passwordHashMemoryKib !== undefined) o.passwordHashMemoryKib = Number(opts.passwordHashMemoryKib);
  if (opts.passwordHashTimeCost !== undefined) o.passwordHashTimeCost = Number(opts.passwordHashTimeCost);
  if (opts.metricsAddr !== undefined) o.metricsAddr = parseMetricsAddr(String(opts.metricsAddr));
  if (opts.backgroundJobs === false) o.backgroundJobs = false;
  if (opts.unlinkedUploadGraceDays !== undefined) o.unlinkedUploadGraceDays = Number(opts.unlinkedUploadGraceDays);
  if (opts.archiveKeepDays !== undefined) o.archiveKeepDays = Number(opts.archiveKeepDays);
  return o;
}
