/**
 * The two halves of a benchmark whose server runs in its own process (so that the load
 * generator does not share its event loop): the parent spawns this same file with the
 * argument `child`; the child sets Parley up, prints one JSON line describing it, and
 * closes the server on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { BenchApp } from './bench-app.js';
import { profileArgs } from './profile.js';

/** In the child: hands `setup` to the parent and closes `bench` when told to stop. */
export function reportToParent(bench: BenchApp, setup: unknown): void {
  process.stdout.write(`${JSON.stringify(setup)}\n`);
  process.on('SIGTERM', async () => {
    await bench.close();
    process.exit(0);
  });
}

/** In the parent: starts `file` as the child and waits for its setup line. */
export async function startChild<T>(file: string, args: string[] = []): Promise<{ child: ChildProcess; setup: T }> {
  const child = spawn(process.execPath, [...profileArgs(), '--import', 'tsx', file, 'child', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((r) => readline.createInterface({ input: child.stdout! }).once('line', r));
  return { child, setup: JSON.parse(line) as T };
}
