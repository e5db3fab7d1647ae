import type { Command } from 'commander';
import type { ConfigOverrides } from '../config.js';

/** Where the data lives: every command that opens the store takes these. */
export function storeOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory (PARLEY_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL URL; SQLite when absent (PARLEY_DATABASE_URL)')
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
    .option('--mail-from <address>', 'From address of outgoing mail (PARLEY_MAIL_FROM)');
}

export function overridesFrom(opts: Record<string, unknown>): ConfigOverrides {
  const o: ConfigOverrides = {};
  if (opts.host) o.host = String(opts.host);
  if (opts.port !== undefined) o.port = Number(opts.port);
  if (opts.dataDir) o.dataDir = String(opts.dataDir);
  if (opts.databaseUrl) o.databaseUrl = String(opts.databaseUrl);
  if (opts.externalUrl) o.externalUrl = String(opts.externalUrl);
  if (opts.orgName) o.orgName = String(opts.orgName);
  if (opts.adminEmail) o.adminEmail = String(opts.adminEmail);
  if (opts.adminPassword) o.adminPassword = String(opts.adminPassword);
  if (opts.smtpUrl) o.smtpUrl = String(opts.smtpUrl);
  if (opts.mailFrom) o.mailFrom = String(opts.mailFrom);
  return o;
}
