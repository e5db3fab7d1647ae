/** `parley soft-deactivation run`: the daily soft-deactivation job now (src/actions/soft-deactivation.ts). */
import type { Command } from 'commander';
import { runSoftDeactivation } from '../actions/soft-deactivation.js';
import { storeOptions } from './options.js';
import { CliError, withContext } from './admin.js';
import { refusals } from './transfer.js';
import { realmOf } from './retention.js';

export function addSoftDeactivationCommands(program: Command): void {
  const soft = program.command('soft-deactivation').description("people away for weeks: no recipient rows for ordinary stream messages until they return (Zulip's long_term_idle)");
  storeOptions(soft.command('run').description('soft-deactivate the people away longer than the days, then make every idle person\'s missing rows'))
    .option('--org <id>', 'only this organization (string id or number; default: every one)')
    .option('--days <n>', 'days without a visit, default 28 (PARLEY_SOFT_DEACTIVATION_DAYS; 0: only catch up)')
    .action(refusals(async (opts) => withContext(opts, async (ctx) => {
      const realm = opts.org !== undefined ? await realmOf(ctx, String(opts.org)) : undefined;
      let days: number | undefined;
      if (opts.days !== undefined) {
        days = Number(opts.days);
        if (!Number.isInteger(days) || days < 0) throw new CliError(`--days: '${String(opts.days)}' is not a whole number of days`);
      }
      process.stderr.write('soft-deactivating and catching up...\n');
      const r = await runSoftDeactivation(ctx, { ...(realm ? { realmId: realm.id } : {}), ...(days !== undefined ? { days } : {}),
        onProgress: (p) => process.stderr.write(`  ${p.deactivated} soft-deactivated, ${p.caughtUp} caught up (${p.rows} rows)\r`) });
      process.stderr.write('\n');
      process.stdout.write(`Soft-deactivated ${r.deactivated} people; caught up ${r.caughtUp} idle people with ${r.rows} recipient rows\n`);
    })));
}
