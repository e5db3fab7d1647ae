import type { Q, StreamRow } from '../store/rows.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { Role } from '../lib/roles.js';

async function activeUsers(q: Q, realmId: number): Promise<Array<{ id: number; role: number }>> {
  return q.selectFrom('users').select(['id', 'role']).where('realm_id', '=', realmId).where('is_active', '=', 1).execute();
}

/**
 * Everyone who may know the stream exists: for public streams every non-guest plus
 * subscribed guests (every user for web-public ones); for private streams the
 * subscribers and the administrators (who see private-stream metadata, as in Zulip).
 */
export async function streamAudienceIds(q: Q, stream: StreamRow): Promise<number[]> {
  const [users, subscribers] = await Promise.all([activeUsers(q, stream.realm_id), subscriptions.listSubscriberIds(q, stream.id)]);
  const ids = new Set(subscribers);
  for (const u of users) {
    if (stream.is_web_public === 1) ids.add(u.id);
    else if (stream.invite_only === 0 && u.role !== Role.GUEST) ids.add(u.id);
    else if (stream.invite_only === 1 && u.role <= Role.ADMINISTRATOR) ids.add(u.id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** Non-guest active users: who hears about public streams and default-stream changes. */
export async function nonGuestUserIds(q: Q, realmId: number): Promise<number[]> {
  return (await activeUsers(q, realmId)).filter((u) => u.role !== Role.GUEST).map((u) => u.id);
}

export async function adminUserIds(q: Q, realmId: number): Promise<number[]> {
  return (await activeUsers(q, realmId)).filter((u) => u.role <= Role.ADMINISTRATOR).map((u) => u.id);
}
