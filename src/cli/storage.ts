import type { Command } from 'commander';
import { sweepUploads, type SweptUpload } from '../actions/upload-sweep.js';
import { CliError, findRealm, run, withContext } from './admin.js';
import { storeOptions } from './options.js';

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const days = (secs: number): string => `${(secs / 86_400).toFixed(1)} days`;

/**
 * `parley storage sweep`: the hourly storage clean-up (src/actions/upload-sweep.ts) now.
 * With --dry-run, lists on stdout what it would delete (path, size, age) and deletes nothing.
 * Progress on stderr; a summary line last; exit 1 when some object could not be deleted.
 */
export function addStorageCommands(program: Command): void {
  const storage = program.command('storage').description('uploaded files in the storage');
  storeOptions(storage.command('sweep').description('delete uploads nothing links any more, older than the grace period (--dry-run: list them)'))
    .option('--dry-run', 'list what would be deleted; delete nothing')
    .option('--org <string_id>', 'only this organization (default: every one)')
    .option('--grace-days <n>', 'only files uploaded more than this many days ago (PARLEY_UNLINKED_UPLOAD_GRACE_DAYS, default 21)')
    .option('--s3-bucket <name>', 'the uploads\' S3-compatible bucket (PARLEY_S3_BUCKET)')
    .option('--s3-endpoint <url>', 'the object store URL when not AWS (PARLEY_S3_ENDPOINT)')
    .option('--s3-region <region>', 'the bucket region (PARLEY_S3_REGION)')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const graceDays = opts.graceDays === undefined ? undefined : Number(opts.graceDays);
      if (graceDays !== undefined && !(Number.isInteger(graceDays) && graceDays >= 0)) throw new CliError(`--grace-days must be a whole number of days, got '${String(opts.graceDays)}'`);
      const realm = opts.org !== undefined ? await findRealm(ctx, String(opts.org)) : undefined;
      const dryRun = opts.dryRun === true;
      const progress = (found: number, bytes: number) => process.stderr.write(`storage sweep: ${found} files, ${mib(bytes)} ${dryRun ? 'found' : 'deleted'} so far\n`);
      const result = await sweepUploads(ctx, { dryRun, onProgress: progress, ...(realm ? { realmId: realm.id } : {}), ...(graceDays !== undefined ? { graceDays } : {}) });
      if (dryRun) for (const f of result.files) process.stdout.write(`${line(f)}\n`);
      const grace = graceDays ?? ctx.config.unlinkedUploadGraceDays;
      const summary = `${result.files.length} unlinked uploads older than ${grace} days, ${mib(result.bytes)}: ${dryRun ? 'would be deleted (dry run)' : 'deleted'}`;
      if (result.failed > 0) throw new CliError(`${summary}; ${result.failed} could not be deleted from the storage (see the log; the next sweep retries)`);
      process.stdout.write(`${summary}\n`);
    })));
}

function line(f: SweptUpload): string {
  return `${f.pathId}\t${f.size} bytes\t${days(f.ageSecs)}`;
}
