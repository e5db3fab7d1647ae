/** manifest.json, the first entry of a Parley backup: what it holds and what made it. */
import fs from 'node:fs';
import type { Engine } from '../store/backup.js';

export const BACKUP_FORMAT = 'parley-backup';
export const BACKUP_FORMAT_VERSION = 1;

export type UploadsPart =
  | { storage: 'local'; included: true; folder: 'uploads/'; files: number; bytes: number }
  | { storage: 's3'; included: false; bucket: string; endpoint: string | null; note: string };

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  parley_version: string;
  created: string;
  engine: Engine;
  /** The last migration applied to the copied database; `migrations` lists them all. */
  migration_level: string;
  migrations: string[];
  /** The database's path inside the archive. */
  database: string;
  uploads: UploadsPart;
  secrets: { in_database: string[]; files: string[]; not_included: string[] };
}

/**
 * Where Parley keeps secrets. All of them are rows of the database, so the database copy
 * carries them; the data directory holds no key files. What configures the server from
 * outside (the environment, the SAML file) is the operator's to keep.
 */
export const SECRETS: Manifest['secrets'] = {
  in_database: [
    'push_server: the registration with the push notification service (zulip_org_id, zulip_org_key)',
    'users.api_key and users.password_hash: API keys and Argon2id password hashes',
    'session: web sign-ins (cookie hashes, CSRF tokens)',
    'bot_service.token: outgoing-webhook tokens',
    'push_device.token: mobile push tokens',
    'invite, email_change: confirmation keys and tokens',
    'sso_token: single sign-on flows in progress (hashes)',
  ],
  files: [],
  not_included: [
    'the environment (PARLEY_* settings, SMTP and database passwords, AWS_* credentials)',
    'the file PARLEY_SAML_IDPS names (the SAML signing key)',
  ],
};

export function parleyVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

/** The manifest of an unpacked backup, checked field by field: it came from a file someone handed us. */
export function parseManifest(raw: unknown): Manifest {
  const bad = (why: string) => new Error(`manifest.json: ${why}`);
  if (typeof raw !== 'object' || raw === null) throw bad('not a JSON object');
  const m = raw as Record<string, unknown>;
  if (m.format !== BACKUP_FORMAT) throw bad(`not a Parley backup (format ${JSON.stringify(m.format)})`);
  if (typeof m.format_version !== 'number' || m.format_version > BACKUP_FORMAT_VERSION) {
    throw bad(`format version ${String(m.format_version)} is newer than this Parley reads (${BACKUP_FORMAT_VERSION}): upgrade Parley`);
  }
  if (m.engine !== 'sqlite' && m.engine !== 'postgres') throw bad(`unknown engine ${JSON.stringify(m.engine)}`);
  if (!Array.isArray(m.migrations) || !m.migrations.every((x) => typeof x === 'string')) throw bad('no list of migrations');
  if (typeof m.database !== 'string') throw bad('no database entry');
  const uploads = m.uploads as Record<string, unknown> | undefined;
  if (typeof uploads !== 'object' || uploads === null || (uploads.storage !== 'local' && uploads.storage !== 's3')) throw bad('no uploads entry');
  return raw as Manifest;
}
