import { Command } from 'commander';
import { serve } from './serve.js';
import { parseWorkers } from './workers.js';
import { serverOptions, overridesFrom } from './options.js';
import { addAdminCommands } from './admin.js';
import { addDemoCommand } from './demo.js';
import { addDigestCommand } from './digest.js';
import { addTransferCommands } from './transfer.js';
import { addStorageCommands } from './storage.js';
import { addBackupCommands } from './backup.js';
import { addRetentionCommands } from './retention.js';
import { addSoftDeactivationCommands } from './soft-deactivation.js';

export { serverOptions, overridesFrom };

export function buildCli(): Command {
  const program = new Command('parley').description('Parley team-chat server');
  serverOptions(program.command('serve').description('start the server'))
    .option('--workers <n>', 'server processes sharing the port, default 1; more than 1 needs PostgreSQL and Redis (PARLEY_WORKERS)')
    .action((opts: Record<string, unknown>) => serve(overridesFrom(opts), { workers: parseWorkers(opts.workers) }));
  addAdminCommands(program);
  addDemoCommand(program);
  addDigestCommand(program);
  addTransferCommands(program);
  addStorageCommands(program);
  addBackupCommands(program);
  addRetentionCommands(program);
  addSoftDeactivationCommands(program);
  return program;
}
