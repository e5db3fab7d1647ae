import type { AppContext } from '../context.js';
import { afterUserCreated } from './user-create.js';
import { afterUserDeactivated } from './user-deactivate.js';
import { notifyPeersOfDeactivatedUser } from './subscription-remove.js';
import { subscribeToDefaultStreams } from './default-streams.js';
import { setStreamEmailDomain } from '../presenters/stream.js';

// Module-level hook arrays outlive any one app: register once per process.
if (!afterUserCreated.includes(subscribeToDefaultStreams)) afterUserCreated.push(subscribeToDefaultStreams);
if (!afterUserDeactivated.includes(notifyPeersOfDeactivatedUser)) afterUserDeactivated.push(notifyPeersOfDeactivatedUser);

/** Per-app wiring of the streams domain. */
export function installStreamHooks(ctx: AppContext): void {
  try {
    setStreamEmailDomain(new URL(ctx.config.externalUrl).hostname);
  } catch {
    /* a malformed external URL keeps the default domain rather than failing startup */
  }
}
