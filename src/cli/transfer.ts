/** `parley import zulip|slack|mattermost` and `parley export`: moving an organization in and out. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { runImport, type ImportKind } from '../import/run.js';
import { boundImportMemory } from '../import/memory.js';
import { exportRealm } from '../export/export-realm.js';
import { ImportError, type Progress } from '../import/source.js';
import { realmUri } from '../lib/realm-host.js';
import { storeOptions } from './options.js';
import { CliError, findRealm, withContext } from './admin.js';

/** One bar per phase on stderr; piped output (CI logs) still gets a line every few seconds. */
export function phaseBars(): Progress {
  let bar: cliProgress.SingleBar | undefined;
  let counted = 0;
  return {
    phase(label, total) {
      bar?.stop();
      counted = 0;
      bar = new cliProgress.SingleBar({
        format: total === undefined ? '  {label} {value}' : '  {label} [{bar}] {value}/{total} ({percentage}%) eta {eta}s',
        stream: process.stderr, hideCursor: true, clearOnComplete: false, noTTYOutput: true, notTTYSchedule: 3000,
      }, cliProgress.Presets.shades_classic);
      bar.start(total ?? 0, 0, { label: label.padEnd(12) });
    },
    tick(n = 1) {
      counted += n;
      bar?.update(counted);
    },
    done() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** Refusals are one line and exit code 1; anything else is a bug and keeps its stack. */
export function refusals(fn: (opts: Record<string, unknown>, ...args: string[]) => Promise<void>) {
  return async (...args: unknown[]) => {
    const opts = args.find((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && !Array.isArray(a) && !('parent' in a)) ?? {};
    const positional = args.filter((a): a is string => typeof a === 'string');
    try {
      await fn(opts, ...positional);
    } catch (err) {
      if (err instanceof ImportError || err instanceof CliError) {
        process.stderr.write(`\nparley: ${err.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw err;
    }
  };
}

const SOURCES: Record<ImportKind, string> = {
  zulip: "a Zulip export (.tar.gz or its folder) from Zulip's manage.py export or parley export",
  slack: 'a Slack workspace export (.zip or its folder)',
  mattermost: 'a Mattermost bulk export (export.json with its attachments: .zip, .tar.gz or folder)',
};

export function addTransferCommands(program: Command): void {
  const imp = program.command('import').description('create an organization from another server\'s export');
  for (const kind of Object.keys(SOURCES) as ImportKind[]) {
    const cmd = storeOptions(imp.command(`${kind} <path>`).description(`import ${SOURCES[kind]}`))
      .requiredOption('--string-id <id>', 'the new organization\'s subdomain: it is served on <id>.<host>')
      .option('--name <name>', 'the organization\'s name (default: the export\'s)');
    if (kind === 'mattermost') cmd.option('--team <name>', 'the team to import when the export has several');
    if (kind === 'slack') cmd.option('--token <token>', 'a Slack API token, for files the export only links (or SLACK_TOKEN)');
    cmd.action(refusals(async (opts, file) => withContext(opts, async (ctx) => {
      const token = opts.token ? String(opts.token) : process.env.SLACK_TOKEN;
      const result = await runImport(ctx, kind, file!, {
        stringId: String(opts.stringId),
        name: opts.name ? String(opts.name) : undefined,
        team: opts.team ? String(opts.team) : undefined,
        token,
      }, phaseBars());
      const realm = await findRealm(ctx, String(opts.stringId));
      const idle = result.idle > 0 ? ` (${result.idle} of them soft-deactivated: idle where they came from)` : '';
      process.stdout.write(`\nImported ${result.users} users${idle}, ${result.streams} streams and ${result.messages} messages into ${realmUri(ctx.config, realm)}\n`
        + `People have no password yet: give one with  parley user password --org ${realm.string_id} --email ADDRESS\n`
        + `or see their API keys with  parley api-key show --org ${realm.string_id} --email ADDRESS\n`);
    }, boundImportMemory())));
  }
  storeOptions(program.command('export <out>').description("write an organization in Zulip's export format (.tar.gz), while the server runs"))
    .option('--org <string_id>', 'organization string id (default: the root organization)', '')
    .action(refusals(async (opts, out) => withContext(opts, async (ctx) => {
      const realm = await findRealm(ctx, String(opts.org ?? ''));
      const folder = path.dirname(path.resolve(out!));
      if (!fs.existsSync(folder)) throw new CliError(`cannot write ${out}: no folder ${folder}`);
      if (fs.existsSync(out!)) throw new CliError(`${out} exists already: give a new file name`);
      const result = await exportRealm(ctx, realm.id, out!, phaseBars());
      process.stdout.write(`\nExported ${result.messages} messages and ${result.files} files of ${realmUri(ctx.config, realm)} to ${out}\n`);
    })));
}
