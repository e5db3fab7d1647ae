import type { Q } from '../rows.js';

/** What the missed-message email (src/notifications/email.ts) asks of the store beyond the shared repos. */
export const notificationEmail = {
  /**
   * Active human accounts with this delivery email in active organizations: Zulip names the
   * organization in the subject ("automatic" policy) when there is more than one.
   */
  countAccountsOfAddress: async (q: Q, deliveryEmail: string): Promise<number> => {
    const row = await q.selectFrom('users').innerJoin('realm', 'realm.id', 'users.realm_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('users.delivery_email', '=', deliveryEmail).where('users.is_active', '=', 1).where('users.is_bot', '=', 0)
      .where('realm.deactivated', '=', 0).executeTakeFirst();
    return Number(row?.n ?? 0);
  },
};
