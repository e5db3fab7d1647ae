import type { Tx } from './transaction.js';
import type { StreamRow, SubscriptionRow, UserRow } from '../store/rows.js';
import type { Updateable } from 'kysely';
import type { SubscriptionTable } from '../store/schema.js';
import { subscriptions } from '../store/repos/subscriptions.js';

export const SUBSCRIPTION_PROPERTIES = [
  'color', 'in_home_view', 'is_muted', 'pin_to_top', 'desktop_notifications', 'audible_notifications',
  'push_notifications', 'email_notifications', 'wildcard_mentions_notify',
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

/**
 * One property of the user's own subscription. Muting is announced both ways
 * (`is_muted` and the legacy inverse `in_home_view`) whichever name the client used.
 */
export async function doChangeSubscriptionProperty(tx: Tx, user: UserRow, stream: StreamRow, sub: SubscriptionRow,
  property: SubscriptionProperty, value: string | boolean): Promise<void> {
  const base = { type: 'subscription', op: 'update', stream_id: stream.id } as const;
  if (property === 'is_muted' || property === 'in_home_view') {
    const muted = property === 'is_muted' ? value === true : value === false;
    await subscriptions.update(tx.db, sub.id, { is_muted: muted ? 1 : 0 });
    tx.notify({ ...base, property: 'is_muted', value: muted }, [user.id], user.realm_id);
    tx.notify({ ...base, property: 'in_home_view', value: !muted }, [user.id], user.realm_id);
    return;
  }
  const patch: Updateable<SubscriptionTable> = property === 'color'
    ? { color: String(value).toLowerCase() }
    : { [property]: value === true ? 1 : 0 };
  await subscriptions.update(tx.db, sub.id, patch);
  tx.notify({ ...base, property, value: property === 'color' ? String(value).toLowerCase() : value }, [user.id], user.realm_id);
}
