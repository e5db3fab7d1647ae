import { Command } from 'commander';
import { serve } from './serve.js';
import { serverOptions, overridesFrom } from './options.js';
import { addAdminCommands } from './admin.js';
import { addDemoCommand } from './demo.js';

export { serverOptions, overridesFrom };

export function buildCli(): Command {
  const program = new Command('parley').description('Parley team-chat server');
  serverOptions(program.command('serve').description('start the server'))
    .action((opts: Record<string, unknown>) => serve(overridesFrom(opts)));
  addAdminCommands(program);
  addDemoCommand(program);
  return program;
}
