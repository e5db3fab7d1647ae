/**
 * `parley restore IN [--force]`: a backup put back into the configured store. Everything
 * that could refuse is checked before anything is written: the archive (unpacked with the
 * importer's checks on every name and size), its engine and migration level, whether the
 * target holds data, and whether a server has the database open.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import { ImportError, type Progress } from '../import/source.js';
import { openInside, readJson, unpack } from '../import/archive.js';
import { createStorage } from '../uploads/create-storage.js';
import { ensurePrivateDir } from '../lib/private-files.js';
import { openStore } from '../store/db.js';
import { BackupRefusal, KNOWN_MIGRATIONS, databaseInUse, databaseTarget, inspectDatabase, loadDatabase } from '../store/backup.js';
import { parseManifest, parleyVersion, type Manifest } from './manifest.js';

const ENGINE_NAME = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

export interface RestoreResult { manifest: Manifest; uploads: number; replaced: boolean }

async function readManifest(root: string): Promise<Manifest> {
  try {
    return parseManifest(await readJson(root, 'manifest.json', 1024 * 1024));
  } catch (err) {
    if (err instanceof ImportError && err.message.includes('lacks')) throw new BackupRefusal('no manifest.json: this is not a Parley backup');
    throw new BackupRefusal((err as Error).message);
  }
}

export async function restoreBackup(config: Config, input: string, opts: { force: boolean }, progress: Progress): Promise<RestoreResult> {
  if (!fs.existsSync(input)) throw new BackupRefusal(`${input}: no such file`);
  const target = databaseTarget(config.databaseUrl, config.dataDir);
  ensurePrivateDir(config.dataDir);
  // Under the data directory: the unpacked uploads are then renamed into place, not copied.
  const work = path.join(config.dataDir, 'tmp', `restore-${crypto.randomBytes(6).toString('hex')}`);
  try {
    const root = await unpack(input, work, undefined, progress);
    const manifest = await readManifest(root);
    if (manifest.engine !== target.engine) {
      throw new BackupRefusal(`the backup is of a ${ENGINE_NAME[manifest.engine]} store and the target is ${ENGINE_NAME[target.engine]}`
        + ` (${target.engine === 'sqlite' ? 'give --database-url to restore into PostgreSQL' : 'drop --database-url / PARLEY_DATABASE_URL to restore into SQLite'})`);
    }
    const unknown = manifest.migrations.filter((m) => !KNOWN_MIGRATIONS.has(m));
    if (unknown.length > 0) {
      throw new BackupRefusal(`the backup was made by a newer Parley (${manifest.parley_version}, migration ${unknown.at(-1)}) than this one (${parleyVersion()}): upgrade Parley first`);
    }
    const state = await inspectDatabase(target);
    if (state.holdsData && !opts.force) {
      throw new BackupRefusal(`the target store holds data (${target.engine === 'sqlite' ? target.file : 'the database'}): restore into an empty one, or give --force to replace it`);
    }
    const busy = await databaseInUse(target);
    if (busy) throw new BackupRefusal(busy);
    const dump = await openInside(root, manifest.database, Number.MAX_SAFE_INTEGER);

    progress.phase('database', 1);
    await loadDatabase(target, dump.path);
    progress.tick();
    progress.done();
    const uploads = manifest.uploads.included ? await restoreUploads(config, path.join(root, 'uploads'), root === work, progress) : 0;
    // Saved event queues belong to the store that was replaced: their clients register anew.
    fs.rmSync(path.join(config.dataDir, 'event-queues.json'), { force: true });

    // As at start: a backup of an older Parley is brought up to this one's schema.
    progress.phase('migrations', 1);
    const store = await openStore(target.engine === 'postgres' ? { databaseUrl: target.url } : { sqlitePath: target.file });
    await store.close();
    progress.tick();
    progress.done();
    return { manifest, uploads, replaced: state.initialized };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function listFiles(dir: string): Promise<string[]> {
  if (!fs.existsSync(dir)) return [];
  const entries = await fs.promises.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/**
 * Local storage: the unpacked folder takes the old one's place (the files the replaced
 * store had are gone with it). S3 (PARLEY_S3_BUCKET set where the backup was local): each
 * file is put into the bucket.
 */
async function restoreUploads(config: Config, from: string, movable: boolean, progress: Progress): Promise<number> {
  const files = await listFiles(from);
  progress.phase('uploads', files.length);
  if (config.s3Bucket) {
    const storage = await createStorage(config);
    for (const rel of files) {
      await storage.put(rel, fs.createReadStream(path.join(from, rel)), { contentType: 'application/octet-stream' });
      progress.tick();
    }
  } else {
    const dest = path.join(config.dataDir, 'uploads');
    fs.rmSync(dest, { recursive: true, force: true });
    if (files.length > 0) {
      if (movable) fs.renameSync(from, dest);
      else fs.cpSync(from, dest, { recursive: true });
    }
    progress.tick(files.length);
  }
  progress.done();
  return files.length;
}
