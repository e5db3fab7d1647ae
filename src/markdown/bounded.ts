import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import { renderMarkdown, type RenderContext, type RenderResult } from './index.js';
import { snapshotContext } from './snapshot.js';
import { moduleWorkerFile } from '../lib/module-worker.js';
import { MAX_MESSAGE_BYTES } from '../lib/limits.js';
import { unableToRenderMessage } from '../errors.js';

/**
 * Markdown rendering that cannot stall the server. markdown-it and highlight.js are
 * synchronous, and some inputs cost far more than their size suggests (runs of `*a`, `[`,
 * long highlighted fences: tens of milliseconds for 10 kB); a render cannot be interrupted
 * on the thread that runs it. So only short plain text, which is most chat and cheap
 * whatever it holds, renders inline (no thread hop on the common path); the rest renders
 * on a small pool of threads under a time budget, and a render that spends the budget or
 * fails is refused as Zulip refuses its own markdown timeout: "Unable to render message".
 */
export interface RenderLimits {
  /** Content longer than this (in UTF-16 units) goes to the pool. */
  inlineMaxChars: number;
  /** A render that has not finished by then is abandoned (its thread is replaced). Zulip's is 5 s. */
  budgetMs: number;
}

const limits: RenderLimits = { inlineMaxChars: 1000, budgetMs: 5000 };

/** For tests and benchmarks: 0 for inlineMaxChars sends everything to the pool. */
export function setRenderLimits(next: Partial<RenderLimits>): void {
  Object.assign(limits, next);
}

// Zulip's guard against runaway output: rendered HTML beyond a hundred times the content limit.
const MAX_RENDERED_CHARS = MAX_MESSAGE_BYTES * 100;

// Fenced code is highlighted, the costliest step per character, and KaTeX's cost for `$$...$$`
// depends on the TeX (macros, nesting), not its length: both always go to the pool.
const FENCE = /```|~~~|\$\$/;

let pool: Piscina | undefined;

function renderPool(): Piscina {
  // Idle threads are unref'd by piscina and leave after idleTimeout, so a pool nobody uses
  // keeps no process alive; one stays warm while large messages keep coming.
  pool ??= new Piscina({
    filename: moduleWorkerFile(new URL('./render-worker.js', import.meta.url)),
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(2, availableParallelism() - 1)),
    idleTimeout: 60_000,
    // A flood of large renders waits here, bounded, rather than growing without limit.
    maxQueue: 256,
  });
  return pool;
}

/** Closes the pool's threads (at shutdown); a later render starts a new pool. */
export async function closeRenderPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}

export function rendersInline(content: string): boolean {
  return content.length <= limits.inlineMaxChars && !FENCE.test(content);
}

/** renderMarkdown, bounded in time: resolves with its result or rejects with "Unable to render message". */
export async function renderMessage(content: string, rctx: RenderContext): Promise<RenderResult> {
  let result: RenderResult;
  if (rendersInline(content)) {
    result = renderMarkdown(content, rctx);
  } else {
    try {
      result = await renderPool().run({ content, snapshot: snapshotContext(content, rctx) }, { signal: AbortSignal.timeout(limits.budgetMs) }) as RenderResult;
    } catch {
      // A timeout, a thread that died, or a full queue: the client hears the same as from Zulip.
      throw unableToRenderMessage();
    }
  }
  if (result.html.length > MAX_RENDERED_CHARS) throw unableToRenderMessage();
  return result;
}
