import type { Q, RealmRow, UserRow } from '../store/rows.js';
import type { RenderContext, RenderUser } from './types.js';
import { identityVersion } from '../store/versions.js';
import { canSeeStream } from '../access/stream.js';

interface RealmUsers { version: number; byName: Map<string, RenderUser[]>; byId: Map<number, RenderUser> }

// Mentions need every active user of the realm by name; reloaded only when a user changed.
const usersByRealm = new Map<number, RealmUsers>();

async function realmUsers(q: Q, realmId: number): Promise<RealmUsers> {
  const cached = usersByRealm.get(realmId);
  if (cached && cached.version === identityVersion()) return cached;
  const version = identityVersion();
  const rows = await q.selectFrom('users').select(['id', 'full_name', 'email'])
    .where('realm_id', '=', realmId).where('is_active', '=', 1).execute();
  const byName = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  for (const u of rows) {
    byId.set(u.id, u);
    const key = u.full_name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), u]);
  }
  const entry = { version, byName, byId };
  usersByRealm.set(realmId, entry);
  return entry;
}

/**
 * What `author` may reference in `content`: realm users, and the streams they can see.
 * Streams are only looked up when the content has a stream link, which most messages do not.
 */
export async function renderContextFor(q: Q, realm: RealmRow, author: UserRow, content: string): Promise<RenderContext> {
  const users = await realmUsers(q, realm.id);
  const streams = !content.includes('#**') ? [] : await q.selectFrom('stream').leftJoin('subscription', (j) => j.onRef('subscription.stream_id', '=', 'stream.id')
    .on('subscription.user_id', '=', author.id))
    .selectAll('stream').select(['subscription.active as sub_active'])
    .where('stream.realm_id', '=', realm.id).where('stream.deactivated', '=', 0).execute();
  const byName = new Map<string, { id: number; name: string }>();
  for (const s of streams) {
    const sub = s.sub_active === 1 ? ({ active: 1 } as never) : null;
    if (canSeeStream(author, s, sub)) byName.set(s.name_lower, { id: s.id, name: s.name });
  }
  return {
    userByName: (name) => users.byName.get(name.toLowerCase()) ?? [],
    userById: (id) => users.byId.get(id),
    groupByName: () => undefined,
    streamByName: (name) => byName.get(name.toLowerCase()),
    linkifiers: [],
  };
}
