import { Worker, type WorkerOptions } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/**
 * Starts a worker thread on a module of this tree. Pass the module as the compiled file
 * beside the caller, `new URL('./name.js', import.meta.url)`, as for any relative import.
 *
 * Compiled (dist/, what `npm start` runs), name.js sits beside the caller and Node runs it
 * directly. Under tsx (tests, benchmarks) only name.ts exists, and Node 20 does not apply
 * the parent's `--import tsx` to a worker's entry module ("Unknown file extension .ts"),
 * so the worker registers tsx itself and then imports name.ts.
 */
export function startModuleWorker(file: URL, options: WorkerOptions = {}): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(file, options);
  const source = new URL(file.href.replace(/\.js$/, '.ts'));
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * The file a worker pool (piscina) should load for a module of this tree, given as
 * `new URL('./name.js', import.meta.url)`: the compiled name.js, or name.ts under tsx,
 * where the pool's threads inherit the `--import tsx` that loads it.
 */
export function moduleWorkerFile(file: URL): string {
  return import.meta.url.endsWith('.ts') ? fileURLToPath(file.href.replace(/\.js$/, '.ts')) : fileURLToPath(file);
}
