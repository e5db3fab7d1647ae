/**
 * `parley backup OUT.tar.gz`: the database copied on one snapshot while the server serves,
 * then the uploads folder, packed with manifest.json. The archive appears at OUT only once
 * complete; a failure leaves nothing behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import type { Progress } from '../import/source.js';
import { TarWriter } from '../export/tar-writer.js';
import { BackupRefusal, DUMP_NAME, databaseTarget, dumpDatabase } from '../store/backup.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, SECRETS, parleyVersion, type Manifest, type UploadsPart } from './manifest.js';

interface UploadFile { rel: string; full: string; size: number }

/**
 * The files under the uploads folder. A local write goes to `<name>.part-<random>` and is
 * renamed when complete: those halves are skipped. A file removed while we walk is skipped too.
 */
async function listUploads(root: string): Promise<UploadFile[]> {
  const found: UploadFile[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, e.name);
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(full, name);
      else if (e.isFile() && !/\.part-[0-9a-f]+$/.test(e.name)) {
        const stat = await fs.promises.stat(full).catch(() => undefined);
        if (stat) found.push({ rel: name, full, size: stat.size });
      }
    }
  };
  await walk(root, '');
  return found;
}

export async function writeBackup(config: Config, out: string, progress: Progress): Promise<Manifest> {
  const target = databaseTarget(config.databaseUrl, config.dataDir);
  const folder = path.dirname(path.resolve(out));
  if (!fs.existsSync(folder)) throw new BackupRefusal(`cannot write ${out}: no folder ${folder}`);
  if (fs.existsSync(out)) throw new BackupRefusal(`${out} exists already: give a new file name`);
  const tag = crypto.randomBytes(6).toString('hex');
  // Beside OUT: the database copy may be large, and OUT's disk is the one meant to hold it.
  const work = fs.mkdtempSync(path.join(folder, `.parley-backup-${tag}-`));
  const partial = path.join(folder, `.${path.basename(out)}.${tag}.partial`);
  let tar: TarWriter | undefined;
  try {
    const dump = path.join(work, DUMP_NAME[target.engine]);
    let shown = 0;
    let started = false;
    const created = new Date().toISOString();
    const migrations = await dumpDatabase(target, dump, (done, total) => {
      if (!started) progress.phase(target.engine === 'sqlite' ? 'database pages' : 'database tables', total);
      started = true;
      progress.tick(done - shown);
      shown = done;
    });
    progress.done();
    // After the database: an upload made meanwhile is packed though the copy does not know
    // it (harmless), rather than a copy naming a file the archive lacks.
    const uploads = config.s3Bucket ? [] : await listUploads(path.join(config.dataDir, 'uploads'));
    const dumpSize = fs.statSync(dump).size;
    progress.phase('packing bytes', dumpSize + uploads.reduce((n, f) => n + f.size, 0));
    tar = new TarWriter(partial);
    const onBytes = (n: number) => progress.tick(n);
    await tar.addFile(`database/${DUMP_NAME[target.engine]}`, dump, new Date(), onBytes);
    let files = 0;
    let bytes = 0;
    for (const f of uploads) {
      try {
        await tar.addFile(`uploads/${f.rel}`, f.full, new Date(), onBytes);
      } catch (err) {
        // Deleted (or replaced) since the walk; the archive's other entries are whole.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      files++;
      bytes += f.size;
    }
    progress.done();
    const uploadsPart: UploadsPart = config.s3Bucket
      ? { storage: 's3', included: false, bucket: config.s3Bucket, endpoint: config.s3Endpoint ?? null,
        note: 'uploads are in the S3 bucket, which this backup does not copy: back the bucket up with your object store (versioning, replication or a sync)' }
      : { storage: 'local', included: true, folder: 'uploads/', files, bytes };
    const manifest: Manifest = {
      format: BACKUP_FORMAT, format_version: BACKUP_FORMAT_VERSION, parley_version: parleyVersion(),
      created, engine: target.engine, migration_level: migrations.at(-1) ?? '',
      migrations, database: `database/${DUMP_NAME[target.engine]}`, uploads: uploadsPart, secrets: SECRETS,
    };
    await tar.addBuffer('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
    await tar.finish();
    fs.renameSync(partial, out);
    return manifest;
  } catch (err) {
    tar?.abort(err instanceof Error ? err : new Error(String(err)));
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
