/** `parley retention run|restore`: message retention now, and bringing an archived batch back. */
import type { Command } from 'commander';
import type { AppContext } from '../context.js';
import type { RealmRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { runRetention } from '../actions/retention.js';
import { restoreArchive } from '../actions/retention-restore.js';
import { storeOptions } from './options.js';
import { CliError, withContext } from './admin.js';
import { phaseBars, refusals } from './transfer.js';

/** --org: the string id (as other commands take it) or the numeric id. */
export async function realmOf(ctx: AppContext, org: string): Promise<RealmRow> {
  const realm = await realms.findByStringId(ctx.store.db, org) ?? (/^\d+$/.test(org) ? await realms.findById(ctx.store.db, Number(org)) : undefined);
  if (!realm) throw new CliError(`No organization '${org}' (give its string id or its number)`);
  return realm;
}

/** T: an ISO 8601 date-time, or UNIX seconds. */
export function parseSince(raw: string): number {
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new CliError(`--since: '${raw}' is neither an ISO date-time (2026-01-31T12:00:00Z) nor UNIX seconds`);
  return Math.floor(ms / 1000);
}

export function addRetentionCommands(program: Command): void {
  const retention = program.command('retention').description("message retention: the organizations' and streams' message_retention_days");
  storeOptions(retention.command('run').description('archive the messages past their retention now, then purge archives older than the keep-days'))
    .option('--org <id>', 'only this organization (string id or number; default: every one)')
    .option('--archive-keep-days <n>', 'days archived messages are kept, default 30 (PARLEY_ARCHIVE_KEEP_DAYS)', (v) => Number(v))
    .action(refusals(async (opts) => withContext(opts, async (ctx) => {
      const realm = opts.org !== undefined ? await realmOf(ctx, String(opts.org)) : undefined;
      const bars = phaseBars();
      bars.phase('archiving');
      let seen = 0;
      const result = await runRetention(ctx, {
        ...(realm ? { realmId: realm.id } : {}),
        onProgress: ({ archived }) => {
          bars.tick(archived - seen);
          seen = archived;
        },
      });
      bars.done();
      process.stdout.write(`Archived ${result.archived.messages} messages in ${result.archived.batches} batches; `
        + `purged ${result.purged.messages} messages of ${result.purged.batches} batches archived over ${ctx.config.archiveKeepDays} days ago\n`);
    })));
  storeOptions(retention.command('restore').description('bring back the messages of an organization archived at or after a time (before the purge)'))
    .requiredOption('--org <id>', 'the organization (string id or number)')
    .requiredOption('--since <time>', 'ISO 8601 date-time or UNIX seconds: batches archived then or later')
    .action(refusals(async (opts) => withContext(opts, async (ctx) => {
      const realm = await realmOf(ctx, String(opts.org));
      const since = parseSince(String(opts.since));
      const bars = phaseBars();
      bars.phase('restoring');
      let seen = 0;
      const result = await restoreArchive(ctx, {
        realmId: realm.id, since,
        onProgress: ({ restored }) => {
          bars.tick(restored - seen);
          seen = restored;
        },
      });
      bars.done();
      process.stdout.write(`Restored ${result.messages} messages from ${result.batches} archived batches since ${new Date(since * 1000).toISOString()}\n`);
    })));
}
