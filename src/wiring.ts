import type { AppContext } from './context.js';
import { connectCacheSignal } from './cache/retire.js';
import { installQueueManager } from './events/manager.js';
import { setStreamEmailDomain } from './presenters/stream.js';

/**
 * Everything a server runs besides answering requests, started explicitly once its
 * context exists: what retires its caches, and its event queues. Nothing is registered
 * by importing a module.
 */
export function startServices(ctx: AppContext): void {
  try {
    // Stream email addresses name the server's host.
    setStreamEmailDomain(new URL(ctx.config.externalUrl).hostname);
  } catch {
    /* a malformed external URL keeps the default domain rather than failing startup */
  }
  const stopCaches = connectCacheSignal(ctx);
  ctx.shutdownHooks.push(async () => stopCaches());
  installQueueManager(ctx);
}
