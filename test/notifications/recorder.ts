import type { MissedMessageSenders } from '../../src/notifications/senders.js';
import type { MissedMessage } from '../../src/notifications/triggers.js';

/** What the real senders would be handed; `fail` makes the next email sends throw. */
export interface Recorded { kind: 'email' | 'push'; userId: number; items: MissedMessage[] }

export function recorder(): MissedMessageSenders & { calls: Recorded[]; fail: number } {
  const r = {
    calls: [] as Recorded[],
    fail: 0,
    email: async (_ctx: unknown, user: { id: number }, items: MissedMessage[]) => {
      if (r.fail > 0) { r.fail--; throw new Error('mailer down'); }
      r.calls.push({ kind: 'email', userId: user.id, items });
    },
    push: async (_ctx: unknown, user: { id: number }, items: MissedMessage[]) => {
      r.calls.push({ kind: 'push', userId: user.id, items });
    },
  };
  return r;
}

