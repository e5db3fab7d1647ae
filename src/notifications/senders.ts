import type { AppContext } from '../context.js';
import type { UserRow } from '../rows.js';
import type { MissedMessage } from './triggers.js';

/**
 * What the notification worker hands a user's due notifications to: the email batch
 * (sendMissedMessageEmails, src/notifications/email.ts) and the pushes
 * (sendMissedMessagePushes, src/notifications/push.ts), given by src/wiring.ts so that tests
 * can record what they would be handed. Each throws when it could not take them (the worker
 * tries again with backoff) and returns once they are handed on.
 */
export interface MissedMessageSenders {
  email(ctx: AppContext, user: UserRow, items: MissedMessage[]): Promise<void>;
  push(ctx: AppContext, user: UserRow, items: MissedMessage[]): Promise<void>;
}
