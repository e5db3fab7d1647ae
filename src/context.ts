import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { EventBus } from './events/bus.js';

/** Everything a handler or action needs, built once by buildApp. */
export interface AppContext {
  config: Config;
  store: Store;
  bus: EventBus;
  log: Logger;
  /** Hooks run on graceful shutdown before the store closes (queue persistence, ...). */
  shutdownHooks: Array<() => Promise<void>>;
}
