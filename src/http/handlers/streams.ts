import type { AuthedRequest, Route } from '../route.js';
import { pathInt } from '../route.js';
import { transact } from '../../store/tx.js';
import type { Q, StreamRow, UserRow } from '../../store/rows.js';
import { streams } from '../../store/repos/streams.js';
import { subscriptions } from '../../store/repos/subscriptions.js';
import { requireAdmin } from '../../access/user.js';
import { accessStreamById, accessStreamByName, canReadHistory, canSeeStream } from '../../access/stream.js';
import { accessStreamForUpdate } from '../../access/stream-admin.js';
import { presentStream, streamEmailAddress } from '../../presenters/stream.js';
import { badRequest } from '../../errors.js';
import { Role, isAdminRole } from '../../lib/roles.js';
import { doEditStream } from '../../actions/stream-edit-request.js';
import { doDeactivateStream } from '../../actions/stream-delete.js';
import { doDeleteTopic } from '../../actions/topic-delete.js';
import { doAddDefaultStream, doRemoveDefaultStream } from '../../actions/default-streams.js';
import { sendLookups } from '../../actions/send-lookups.js';
import { checkStreamDescription } from '../../actions/stream-create.js';
import { optPostPolicy, optRetentionDays } from './stream-params.js';

async function listStreamsFor(r: AuthedRequest): Promise<Array<Record<string, unknown>>> {
  const p = r.params;
  const includePublic = p.bool('include_public', true);
  const includeWebPublic = p.bool('include_web_public', false);
  const includeSubscribed = p.bool('include_subscribed', true);
  const includeAllActive = p.bool('include_all_active', false);
  const includeDefault = p.bool('include_default', false);
  const includeOwnerSubscribed = p.bool('include_owner_subscribed', false);
  if (includeAllActive && !isAdminRole(r.user.role)) throw badRequest('User not authorized for this query');
  const db = r.ctx.store.db;
  const all = await sendLookups.realmStreams(db, r.realm.id);
  const defaults = new Set(await streams.listDefaultIds(db, r.realm.id));
  let chosen: StreamRow[] = [...all];
  if (!includeAllActive) {
    const mine = new Set(await subscriptions.listSubscribedStreamIds(db, r.user.id));
    const owners = includeOwnerSubscribed && r.user.is_bot === 1 && r.user.bot_owner_id !== null
      ? new Set(await subscriptions.listSubscribedStreamIds(db, r.user.bot_owner_id)) : new Set<number>();
    const isGuest = r.user.role === Role.GUEST;
    chosen = all.filter((s) => (includeSubscribed && mine.has(s.id))
      || (includePublic && !isGuest && s.invite_only === 0)
      || (includeWebPublic && s.is_web_public === 1)
      || owners.has(s.id)
      || (includeDefault && defaults.has(s.id) && canSeeStream(r.user, s, null)));
  }
  chosen.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return chosen.map((s) => (includeDefault ? { ...presentStream(s), is_default: defaults.has(s.id) } : presentStream(s)));
}

/** Topics with their newest message id, newest first; only messages the user may read. */
async function topicsFor(q: Q, user: UserRow, stream: StreamRow, fullHistory: boolean): Promise<Array<{ name: string; max_id: number }>> {
  let query = q.selectFrom('message').select(['message.topic_lower', (eb) => eb.fn.max('message.id').as('max_id')])
    .where('message.stream_id', '=', stream.id);
  if (!fullHistory) {
    query = query.where((eb) => eb.exists(eb.selectFrom('user_message').select('user_message.message_id')
      .whereRef('user_message.message_id', '=', 'message.id').where('user_message.user_id', '=', user.id)));
  }
  const groups = await query.groupBy('message.topic_lower').execute();
  const ids = groups.map((g) => Number(g.max_id));
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await q.selectFrom('message').select(['id', 'topic']).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const row of rows) names.set(row.id, row.topic);
  }
  return ids.sort((a, b) => b - a).map((id) => ({ name: names.get(id) ?? '', max_id: id }));
}

function parseEdit(r: AuthedRequest) {
  const description = r.params.optStr('description');
  return {
    description: description === undefined ? undefined : checkStreamDescription(description),
    newName: r.params.optStr('new_name'),
    isPrivate: r.params.optBool('is_private'),
    isWebPublic: r.params.optBool('is_web_public'),
    historyPublicToSubscribers: r.params.optBool('history_public_to_subscribers'),
    streamPostPolicy: optPostPolicy(r.params),
    isAnnouncementOnly: r.params.optBool('is_announcement_only'),
    messageRetentionDays: optRetentionDays(r.params),
  };
}

export const streamRoutes: Route[] = [
  {
    method: 'GET', path: '/streams', auth: 'user',
    handler: async (r) => ({ streams: await listStreamsFor(r) }),
  },
  {
    method: 'GET', path: '/streams/:stream_id', auth: 'user',
    handler: async (r) => {
      const { stream } = await accessStreamById(r.ctx.store.db, r.user, pathInt(r, 'stream_id'), { allowAdmin: true });
      return { stream: presentStream(stream) };
    },
  },
  {
    method: 'GET', path: '/get_stream_id', auth: 'user',
    handler: async (r) => {
      const { stream } = await accessStreamByName(r.ctx.store.db, r.user, r.params.str('stream'));
      return { stream_id: stream.id };
    },
  },
  {
    method: 'GET', path: '/streams/:stream_id/members', auth: 'user',
    handler: async (r) => {
      const db = r.ctx.store.db;
      const { stream } = await accessStreamById(db, r.user, pathInt(r, 'stream_id'), { allowAdmin: true });
      return { subscribers: await subscriptions.listSubscriberIds(db, stream.id) };
    },
  },
  {
    // Newer Zulip's endpoint, used by clients whose subscription objects lack email_address.
    method: 'GET', path: '/streams/:stream_id/email_address', auth: 'user',
    handler: async (r) => {
      const { stream } = await accessStreamById(r.ctx.store.db, r.user, pathInt(r, 'stream_id'));
      return { email: streamEmailAddress(stream) };
    },
  },
  {
    method: 'GET', path: '/users/me/:stream_id/topics', auth: 'user',
    handler: async (r) => {
      const db = r.ctx.store.db;
      const { stream, sub } = await accessStreamById(db, r.user, pathInt(r, 'stream_id'));
      return { topics: await topicsFor(db, r.user, stream, canReadHistory(r.user, stream, sub)) };
    },
  },
  {
    method: 'PATCH', path: '/streams/:stream_id', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'stream_id');
      await transact(r.ctx, async (tx) => {
        const { stream } = await accessStreamForUpdate(tx.db, r.user, id);
        await doEditStream(tx, r.realm, r.user, stream, parseEdit(r));
      });
      return {};
    },
  },
  {
    method: 'DELETE', path: '/streams/:stream_id', auth: 'user',
    handler: async (r) => {
      const id = pathInt(r, 'stream_id');
      await transact(r.ctx, async (tx) => doDeactivateStream(tx, (await accessStreamForUpdate(tx.db, r.user, id)).stream));
      return {};
    },
  },
  {
    method: 'POST', path: '/streams/:stream_id/delete_topic', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = pathInt(r, 'stream_id');
      const topic = r.params.str('topic_name');
      await transact(r.ctx, async (tx) => doDeleteTopic(tx, r.user, (await accessStreamById(tx.db, r.user, id)).stream, topic));
      return {};
    },
  },
  {
    method: 'GET', path: '/default_streams', auth: 'user',
    handler: async (r) => ({ default_streams: (await streams.listDefaults(r.ctx.store.db, r.realm.id)).map(presentStream) }),
  },
  {
    method: 'POST', path: '/default_streams', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = r.params.int('stream_id');
      await transact(r.ctx, async (tx) => doAddDefaultStream(tx, (await accessStreamById(tx.db, r.user, id)).stream));
      return {};
    },
  },
  {
    method: 'DELETE', path: '/default_streams', auth: 'user',
    handler: async (r) => {
      requireAdmin(r.user);
      const id = r.params.int('stream_id');
      await transact(r.ctx, async (tx) => doRemoveDefaultStream(tx, (await accessStreamById(tx.db, r.user, id, { allowAdmin: true })).stream));
      return {};
    },
  },
];
