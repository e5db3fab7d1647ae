import type { Command } from 'commander';
import { sendDigests } from '../notifications/digest.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { nowSeconds } from '../lib/time.js';
import { ROOT_STRING_ID } from '../lib/realm-host.js';
import { CliError, findRealm, findUser, run, withContext } from './admin.js';
import { storeOptions } from './options.js';

/** Below this many users a run is quick enough to need no progress line. */
const PROGRESS_FROM = 50;

/**
 * `parley digest send`: the weekly digest now, whatever the organizations' weekday, to the
 * users who would get it (digests on, away five days, none sent since); with --user, to
 * that user whatever their activity. Prints what it did as JSON.
 */
export function addDigestCommand(program: Command): void {
  const digest = program.command('digest').description('the weekly digest email');
  storeOptions(digest.command('send').description("send the digest now to those due one, on any weekday (--user: that user, away or not)"))
    .option('--org <string_id>', 'only this organization (default: every one; with --user, the root organization)')
    .option('--user <email>', 'only this user')
    .option('--smtp-url <url>', 'SMTP server; without one, mail goes to <data-dir>/outbox (PARLEY_SMTP_URL)')
    .option('--mail-from <address>', 'From address (PARLEY_MAIL_FROM)')
    .option('--feature-level <level>', 'the API feature level the server reports, for the links (PARLEY_FEATURE_LEVEL)')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const realm = opts.org !== undefined || opts.user !== undefined ? await findRealm(ctx, String(opts.org ?? ROOT_STRING_ID)) : undefined;
      const name = realm ? `'${realm.string_id || '(default)'}'` : '';
      if (realm && !realmSettings(realm.settings).digest_emails_enabled) throw new CliError(`Digest emails are off in organization ${name} (digest_emails_enabled)`);
      const user = opts.user !== undefined && realm ? await findUser(ctx, realm, String(opts.user)) : undefined;
      if (user && (user.is_active !== 1 || user.is_bot === 1)) throw new CliError(`User '${String(opts.user)}' is deactivated or a bot: digests go to active people only`);
      if (user && !userSettings(user.settings).enable_digest_emails) throw new CliError(`User '${String(opts.user)}' has digest emails off (enable_digest_emails)`);
      const progress = (done: number, total: number) => {
        if (total >= PROGRESS_FROM && (done % 25 === 0 || done === total)) process.stderr.write(`digest: ${done}/${total} users\n`);
      };
      const result = await sendDigests(ctx, nowSeconds(), { ...(realm ? { realm } : {}), ...(user ? { user } : {}), anyWeekday: true, onProgress: progress });
      process.stdout.write(`${JSON.stringify(result)}\n`);
    })));
}
