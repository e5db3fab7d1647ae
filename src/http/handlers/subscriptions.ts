import type { Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { pathInt } from '../route.js';
import { isDict } from '../params.js';
import { transact } from '../../actions/transaction.js';
import { fitsIdColumn } from '../../lib/ids.js';
import { accessUserById } from '../../access/user.js';
import { isSubscribed, ownSubscriptions } from '../../reads/subscriptions.js';
import { streamByName } from '../../reads/streams.js';
import { accessStreamById, accessStreamByName } from '../../access/stream.js';
import { presentSubscription } from '../../presenters/stream.js';
import { badRequest, noSuchUser } from '../../errors.js';
import { doSubscribeRequest, subscribeRequest, doUnsubscribeRequest, unsubscribeRequest } from '../../actions/subscription-request.js';
import { doChangeSubscriptionProperty, SUBSCRIPTION_PROPERTIES, type SubscriptionProperty } from '../../actions/subscription-properties.js';
import { doMuteTopic, doUnmuteTopic } from '../../actions/muted-topics.js';
import { checkColor, optPostPolicy, optRetentionDays, parsePrincipals, parseStreamDicts } from './stream-param-parsers.js';

interface PropertyChange {
  stream_id: number;
  property: string;
  value: string | boolean;
}

function parsePropertyChanges(v: unknown): PropertyChange[] {
  if (!Array.isArray(v)) throw badRequest('subscription_data is not a list');
  return v.map((item, i) => {
    const at = `subscription_data[${i}]`;
    if (!isDict(item)) throw badRequest(`${at} is not a dict`);
    for (const k of ['stream_id', 'property', 'value']) if (!(k in item)) throw badRequest(`${k} key is missing from ${at}`);
    if (typeof item.stream_id !== 'number' || !Number.isSafeInteger(item.stream_id)) throw badRequest(`${at}["stream_id"] is not an integer`);
    if (typeof item.property !== 'string') throw badRequest(`${at}["property"] is not a string`);
    if (typeof item.value !== 'string' && typeof item.value !== 'boolean') throw badRequest(`${at}["value"] is not an allowed_type`);
    return { stream_id: item.stream_id, property: item.property, value: item.value };
  });
}

export const subscriptionRoutes: Route[] = [
  {
    method: 'GET', path: '/users/me/subscriptions', auth: 'user',
    handler: async (r) => {
      const withSubscribers = r.params.bool('include_subscribers', false);
      const list = await ownSubscriptions(r.ctx.store.db, r.user, withSubscribers);
      return { subscriptions: list.map(({ stream, sub, subscribers }) => presentSubscription(stream, sub, subscribers)) };
    },
  },
  {
    method: 'POST', path: '/users/me/subscriptions', auth: 'user',
    handler: async (r) => {
      const dicts = parseStreamDicts(r.params.jsonList('subscriptions', LIST_LIMITS.streams));
      const principals = parsePrincipals(r.params.optJsonList('principals', LIST_LIMITS.users));
      const req = {
        streams: dicts,
        inviteOnly: r.params.bool('invite_only', false),
        isWebPublic: r.params.bool('is_web_public', false),
        historyPublicToSubscribers: r.params.optBool('history_public_to_subscribers'),
        streamPostPolicy: optPostPolicy(r.params),
        messageRetentionDays: optRetentionDays(r.params),
        authorizationErrorsFatal: r.params.bool('authorization_errors_fatal', true),
        announce: r.params.bool('announce', false),
      };
      return { ...(await subscribeRequest(r.ctx, r.realm, r.user, { ...req, principals })) };
    },
  },
  {
    method: 'DELETE', path: '/users/me/subscriptions', auth: 'user',
    handler: async (r) => {
      const names = r.params.strList('subscriptions', LIST_LIMITS.streams);
      const principals = parsePrincipals(r.params.optJsonList('principals', LIST_LIMITS.users));
      return { ...(await unsubscribeRequest(r.ctx, r.user, names, principals)) };
    },
  },
  {
    // Zulip's older combined form: `add` (like POST) and `delete` (like DELETE) in one transaction.
    method: 'PATCH', path: '/users/me/subscriptions', auth: 'user',
    handler: async (r) => {
      const add = r.params.has('add') ? parseStreamDicts(r.params.jsonList('add', LIST_LIMITS.streams), 'add') : [];
      const del = r.params.optStrList('delete', LIST_LIMITS.streams) ?? [];
      if (add.length === 0 && del.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
      return transact(r.ctx, async (tx) => {
        // Zulip runs both halves, an empty one included, and merges their answers.
        const out: Record<string, unknown> = { subscribed: {}, already_subscribed: {}, removed: [], not_removed: [] };
        if (add.length > 0) {
          Object.assign(out, await doSubscribeRequest(tx, r.realm, r.user, {
            streams: add, inviteOnly: false, isWebPublic: false, authorizationErrorsFatal: true,
          }));
        }
        if (del.length > 0) Object.assign(out, await doUnsubscribeRequest(tx, r.user, del, undefined));
        return out;
      });
    },
  },
  {
    method: 'GET', path: '/users/:user_id/subscriptions/:stream_id', auth: 'user',
    handler: async (r) => {
      const userId = pathInt(r, 'user_id');
      const streamId = pathInt(r, 'stream_id');
      const db = r.ctx.store.db;
      if (!fitsIdColumn(userId)) throw noSuchUser();
      const target = await accessUserById(db, r.user, userId);
      const { stream } = await accessStreamById(db, r.user, streamId, { allowAdmin: true });
      return { is_subscribed: await isSubscribed(db, target.id, stream.id) };
    },
  },
  {
    method: 'POST', path: '/users/me/subscriptions/properties', auth: 'user',
    handler: async (r) => {
      const changes = parsePropertyChanges(r.params.jsonList('subscription_data', LIST_LIMITS.other));
      const out: PropertyChange[] = [];
      await transact(r.ctx, async (tx) => {
        for (const c of changes) {
          if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(c.property)) {
            throw badRequest(`Unknown subscription property: ${c.property}`);
          }
          const { stream, sub } = await accessStreamById(tx.db, r.user, c.stream_id);
          if (!sub) throw badRequest(`Not subscribed to stream id ${c.stream_id}`);
          let value: string | boolean = c.value;
          if (c.property === 'color') value = checkColor('color', c.value);
          else if (typeof c.value !== 'boolean') throw badRequest(`${c.property} is not a boolean`);
          await doChangeSubscriptionProperty(tx, r.user, stream, sub, c.property as SubscriptionProperty, value);
          out.push({ stream_id: c.stream_id, property: c.property, value });
        }
      });
      return { subscription_data: out };
    },
  },
  {
    method: 'PATCH', path: '/users/me/subscriptions/muted_topics', auth: 'user',
    handler: async (r) => {
      const streamId = r.params.optInt('stream_id');
      const streamName = r.params.optStr('stream');
      const topic = r.params.str('topic');
      const op = r.params.str('op');
      if (streamId === undefined && streamName === undefined) throw badRequest("Please supply 'stream'.");
      if (streamId !== undefined && streamName !== undefined) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
      if (op !== 'add' && op !== 'remove') throw badRequest('Invalid op');
      await transact(r.ctx, async (tx) => {
        if (op === 'add') {
          const { stream } = streamId !== undefined
            ? await accessStreamById(tx.db, r.user, streamId)
            : await accessStreamByName(tx.db, r.user, streamName!);
          await doMuteTopic(tx, r.user, stream, topic);
          return;
        }
        // Unmuting needs no access to the stream: only that the topic was muted (Zulip's rule).
        const id = streamId ?? (await streamByName(tx.db, r.user.realm_id, streamName!))?.id;
        if (id === undefined || !fitsIdColumn(id)) throw badRequest('Topic is not muted');
        await doUnmuteTopic(tx, r.user, id, topic);
      });
      return {};
    },
  },
];
