import type { AppContext } from './context.js';
import { installStreamHooks } from './actions/stream-hooks.js';
import { watchMessageChanges } from './lib/max-message-id.js';
import { watchMembershipEvents } from './actions/send-lookups.js';
import { installQueueManager } from './events/manager.js';
import { installMessageCache } from './presenters/message-cache.js';
import { watchStoreEpoch } from './store/epoch.js';

/**
 * Wires each domain's per-process machinery (event queues, cross-domain hooks)
 * into a freshly built context. Domains add themselves here.
 */
export function installDomainHooks(ctx: AppContext): void {
  installStreamHooks(ctx);
  watchMessageChanges(ctx.bus);
  watchMembershipEvents(ctx.bus);
  installMessageCache(ctx);
  installQueueManager(ctx);
  const stopEpoch = watchStoreEpoch(ctx);
  ctx.shutdownHooks.push(async () => stopEpoch());
}
