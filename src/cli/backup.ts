/** `parley backup` and `parley restore`: the whole server (database, uploads, secrets) in one archive. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { writeBackup } from '../backup/write-backup.js';
import { restoreBackup } from '../backup/restore-backup.js';
import { overridesFrom, storeOptions } from './options.js';
import { phaseBars } from './transfer.js';
import type { Progress } from '../import/source.js';

/**
 * Any failure is one line and exit code 1: an operator's cron job reads the line, and a
 * backup that failed half way has left nothing (write-backup.ts) to mistake for one.
 */
function oneLine(fn: (file: string, opts: Record<string, unknown>, progress: Progress) => Promise<string>) {
  return async (file: string, opts: Record<string, unknown>) => {
    const progress = phaseBars();
    try {
      process.stdout.write(`${await fn(file, opts, progress)}\n`);
    } catch (err) {
      // A bar left running keeps the process alive (and drawing).
      progress.done();
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`\nparley: ${message.split('\n')[0]}\n`);
      process.exitCode = 1;
    }
  };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function addBackupCommands(program: Command): void {
  storeOptions(program.command('backup <out>').description('write a consistent backup (database, uploads, secrets) to OUT.tar.gz while the server runs'))
    .action(oneLine(async (out, opts, progress) => {
      const started = Date.now();
      const config = loadConfig({ ...overridesFrom(opts), logLevel: 'warn' });
      const m = await writeBackup(config, out, progress);
      const uploads = m.uploads.included ? `${m.uploads.files} uploads` : `uploads in S3 bucket ${m.uploads.bucket} not included`;
      return `Backed up the ${m.engine} store (migration ${m.migration_level}, ${uploads}) to ${out}: ${mib(fs.statSync(out).size)} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
    }));

  storeOptions(program.command('restore <in>').description('restore a backup made by parley backup into the configured store (stop the server first)'))
    .option('--force', 'replace a store that holds data')
    .action(oneLine(async (input, opts, progress) => {
      const config = loadConfig({ ...overridesFrom(opts), logLevel: 'warn' });
      const r = await restoreBackup(config, input, { force: opts.force === true }, progress);
      const where = config.databaseUrl ? 'the PostgreSQL database' : config.dataDir;
      return `Restored the backup of ${r.manifest.created} (${r.manifest.engine}, migration ${r.manifest.migration_level}, ${r.uploads} uploads) into ${where}${r.replaced ? ', replacing what it held' : ''}: start the server`;
    }));
}
