import type { AuthedRequest, Route } from '../route.js';
import { pathInt } from '../route.js';
import { transact } from '../../actions/transaction.js';
import { requireAdmin } from '../../access/user.js';
import { accessStreamById, accessStreamByName, canReadHistory } from '../../access/stream.js';
import { accessStreamForUpdate } from '../../access/stream-admin.js';
import { presentStream, streamEmailAddress } from '../../presenters/stream.js';
import { badRequest } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import { doEditStream } from '../../actions/stream-edit-request.js';
import { doDeactivateStream } from '../../actions/stream-delete.js';
import { doDeleteTopic } from '../../actions/topic-delete.js';
import { doAddDefaultStream, doRemoveDefaultStream } from '../../actions/default-streams.js';
import { defaultStreams, listStreams, subscriberIds, topicsOf } from '../../reads/streams.js';
import { checkStreamDescription } from '../../actions/stream-create.js';
import { optPostPolicy, optRetentionDays } from './stream-param-parsers.js';

async function listStreamsFor(r: AuthedRequest): Promise<Array<Record<string, unknown>>> {
  const p = r.params;
  const filter = {
    includePublic: p.bool('include_public', true),
    includeWebPublic: p.bool('include_web_public', false),
    includeSubscribed: p.bool('include_subscribed', true),
    includeAllActive: p.bool('include_all_active', false),
    includeDefault: p.bool('include_default', false),
    includeOwnerSubscribed: p.bool('include_owner_subscribed', false),
  };
  if (filter.includeAllActive && !isAdminRole(r.user.role)) throw badRequest('User not authorized for this query');
  const list = await listStreams(r.ctx.store.db, r.user, filter);
  return list.map(({ stream, isDefault }) => (filter.includeDefault ? { ...presentStream(stream), is_default: isDefault } : presentStream(stream)));
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
      return { subscribers: [...(await subscriberIds(db, stream.id))] };
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
      return { topics: await topicsOf(db, r.user, stream, canReadHistory(r.user, stream, sub)) };
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
    handler: async (r) => ({ default_streams: (await defaultStreams(r.ctx.store.db, r.realm.id)).map(presentStream) }),
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
