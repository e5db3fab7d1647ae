import type { Q } from '../store/rows.js';
import { cachedRead } from '../cache/index.js';
import { softDeactivation } from '../store/repos/soft-deactivation.js';
import { IdleRecipients } from '../cache/idle-recipients.js';

/** Changes with the people (their idle state, their settings) and with subscriptions. */
export const realmIdleRecipients = (q: Q, realmId: number): Promise<IdleRecipients> =>
  cachedRead(q, (c) => c.idleRecipients, realmId, async () => new IdleRecipients(await softDeactivation.idleOfRealm(q, realmId)));
