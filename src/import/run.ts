/**
 * `parley import`: unpack the archive into a private temporary folder of the data directory,
 * read it as its kind of export, load it into a new organization, and remove the folder
 * whatever happened.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { realmEmailDomain } from '../lib/realm-host.js';
import { DEFAULT_LIMITS, findRoot, unpack, type ArchiveLimits } from './archive.js';
import { openZulipSource } from './zulip-source.js';
import { openSlackSource } from './slack/index.js';
import { openMattermostSource } from './mattermost/index.js';
import { loadRealm, type LoadResult } from './load/index.js';
import { NO_PROGRESS, type ImportSource, type Progress } from './source.js';

export type ImportKind = 'zulip' | 'slack' | 'mattermost';

export interface ImportOptions {
  stringId: string;
  name?: string | undefined;
  /** Mattermost: the team to import when the export has several. */
  team?: string | undefined;
  /** Slack: an API token for files the export only links. */
  token?: string | undefined;
  limits?: ArchiveLimits;
  /** Slack: how files are fetched (tests pass their own). */
  fetch?: typeof globalThis.fetch;
}

/** The largest file an import copies (an upload, an avatar, an emoji image). */
const MAX_FILE_BYTES = 1024 ** 3;

export async function runImport(ctx: AppContext, kind: ImportKind, file: string, opts: ImportOptions, progress: Progress = NO_PROGRESS): Promise<LoadResult> {
  const base = path.join(ctx.config.dataDir, 'tmp');
  await fs.promises.mkdir(base, { recursive: true, mode: 0o700 });
  const tmp = await fs.promises.mkdtemp(path.join(base, 'import-'));
  let source: ImportSource | undefined;
  try {
    const root = await unpack(file, path.join(tmp, 'export'), opts.limits ?? DEFAULT_LIMITS, progress);
    const emailDomain = realmEmailDomain(ctx.config, { string_id: opts.stringId });
    if (kind === 'zulip') source = await openZulipSource(await findRoot(root, 'realm.json'), { maxFileBytes: MAX_FILE_BYTES });
    else if (kind === 'slack') {
      source = await openSlackSource(await findRoot(root, 'users.json'), {
        emailDomain, maxFileBytes: MAX_FILE_BYTES, ...(opts.token ? { token: opts.token } : {}), ...(opts.fetch ? { fetch: opts.fetch } : {}),
      });
    } else {
      source = await openMattermostSource(await findRoot(root, 'export.json'), { emailDomain, maxFileBytes: MAX_FILE_BYTES, ...(opts.team ? { team: opts.team } : {}) });
    }
    return await loadRealm(ctx, source, { stringId: opts.stringId, name: opts.name, maxFileBytes: MAX_FILE_BYTES }, progress);
  } finally {
    await source?.close().catch(() => undefined);
    // Synchronously: Node's promise-based recursive rm walks every entry at once, and over an
    // unpacked export of 100,000 files took the process from 42 to 395 MB of RSS (rmSync: 66),
    // the import's peak. Nothing else runs in the process by then.
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
