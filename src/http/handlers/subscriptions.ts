import { NoAnswer, pathInt, route, type Route } from '../route.js';
import { Bool, Default, Dict, Int, List, OneOf, Opt, Str, StrList, Type } from '../../schemas/params.js';
import { WireSubscription } from '../../schemas/wire.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { fitsIdColumn } from '../../lib/ids.js';
import { accessUserById } from '../../access/user.js';
import { isSubscribed, ownSubscriptions } from '../../reads/subscriptions.js';
import { streamByName } from '../../reads/streams.js';
import { streamToDropTopicPolicy } from '../../access/user-topic.js';
import { accessStreamById, accessStreamByName } from '../../access/stream.js';
import { presentSubscription } from '../../presenters/stream.js';
import { badRequest, noSuchUser } from '../../errors.js';
import { doSubscribeRequest, subscribeRequest, doUnsubscribeRequest, unsubscribeRequest } from '../../actions/subscription-request.js';
import { doChangeSubscriptionProperty, SUBSCRIPTION_PROPERTIES, type SubscriptionProperty } from '../../actions/subscription-properties.js';
import { doSetUserTopicPolicy } from '../../actions/user-topics.js';
import { VisibilityPolicy } from '../../lib/visibility-policy.js';
import { checkColor, checkPostPolicy, principals, streamGroupSettingParams, retentionDays, streamDicts, streamPolicyParams, toStreamDicts } from './stream-param-parsers.js';

interface PropertyChange {
  stream_id: number;
  property: string;
  value: string | boolean;
}

const propertyChanges = List(Dict({ stream_id: Int(), property: Str(), value: OneOf([Str(), Bool()]) }), LIST_LIMITS.other);
const subscribeAnswer = Type.Object({
  subscribed: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Each user\'s email (from feature level 289 their id): the streams they were subscribed to' }),
  already_subscribed: Type.Record(Type.String(), Type.Array(Type.String())),
  unauthorized: Type.Optional(Type.Array(Type.String())),
});
const unsubscribeAnswer = Type.Object({ removed: Type.Array(Type.String()), not_removed: Type.Array(Type.String()) });

export const subscriptionRoutes: Route[] = [
  route({
    method: 'GET', path: '/users/me/subscriptions', auth: 'user', summary: 'Get subscribed streams', params: { include_subscribers: Default(Bool(), false) },
    answer: Type.Object({ subscriptions: Type.Array(WireSubscription) }),
    handler: async (r) => {
      const withSubscribers = r.args.include_subscribers;
      // From level 315 the list holds subscriptions to archived streams too (is_archived).
      const list = await ownSubscriptions(r.ctx.store.db, r.user, withSubscribers, r.ctx.config.featureLevel >= 315);
      return { subscriptions: list.map(({ stream, sub, subscribers }) => presentSubscription(stream, sub, subscribers, r.ctx.config.featureLevel)) };
    },
  }),
  route({
    method: 'POST', path: '/users/me/subscriptions', auth: 'user', summary: 'Subscribe to streams, creating them as needed',
    params: {
      subscriptions: streamDicts,
      principals,
      invite_only: Default(Bool(), false),
      is_web_public: Default(Bool(), false),
      history_public_to_subscribers: Opt(Bool()),
      ...streamPolicyParams,
      authorization_errors_fatal: Default(Bool(), true),
      announce: Default(Bool(), false),
      is_default_stream: Default(Bool({ description: 'Make the streams created default streams (feature level 200)' }), false),
    },
    answer: subscribeAnswer,
    handler: async (r) => {
      const dicts = toStreamDicts(r.args.subscriptions);
      const who = r.args.principals;
      const req = {
        streams: dicts,
        inviteOnly: r.args.invite_only,
        isWebPublic: r.args.is_web_public,
        historyPublicToSubscribers: r.args.history_public_to_subscribers,
        streamPostPolicy: checkPostPolicy(r.args.stream_post_policy),
        messageRetentionDays: retentionDays(r.args.message_retention_days),
        authorizationErrorsFatal: r.args.authorization_errors_fatal,
        announce: r.args.announce,
        groupSettings: streamGroupSettingParams(r.args, false),
        isDefaultStream: r.args.is_default_stream,
        featureLevel: r.ctx.config.featureLevel,
      };
      return { ...(await subscribeRequest(r.ctx, r.realm, r.user, { ...req, principals: who })) };
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/subscriptions', auth: 'user', summary: 'Unsubscribe from streams',
    params: { subscriptions: StrList(LIST_LIMITS.streams, { description: 'Stream names' }), principals },
    answer: unsubscribeAnswer,
    handler: async (r) => {
      const names = r.args.subscriptions;
      return { ...(await unsubscribeRequest(r.ctx, r.user, names, r.args.principals)) };
    },
  }),
  route({
    // Zulip's older combined form: `add` (like POST) and `delete` (like DELETE) in one transaction.
    method: 'PATCH', path: '/users/me/subscriptions', auth: 'user', summary: 'Subscribe and unsubscribe at once (deprecated)',
    params: { add: Opt(streamDicts), delete: Opt(StrList(LIST_LIMITS.streams)) },
    answer: Type.Composite([subscribeAnswer, unsubscribeAnswer]),
    handler: async (r) => {
      const added = r.args.add;
      const add = added !== undefined ? toStreamDicts(added, 'add') : [];
      const del = r.args.delete ?? [];
      if (add.length === 0 && del.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
      return transact(r.ctx, async (tx) => {
        // Zulip runs both halves, an empty one included, and merges their answers.
        const out: Record<string, unknown> = { subscribed: {}, already_subscribed: {}, removed: [], not_removed: [] };
        if (add.length > 0) {
          Object.assign(out, await doSubscribeRequest(tx, r.realm, r.user, {
            streams: add, inviteOnly: false, isWebPublic: false, authorizationErrorsFatal: true,
            // Zulip answers through add_subscriptions_backend: its users by id from level 289, as POST's.
            featureLevel: r.ctx.config.featureLevel,
          }));
        }
        if (del.length > 0) Object.assign(out, await doUnsubscribeRequest(tx, r.user, del, undefined));
        return out;
      });
    },
  }),
  route({
    method: 'GET', path: '/users/:user_id/subscriptions/:stream_id', auth: 'user', summary: 'Get subscription status',
    answer: Type.Object({ is_subscribed: Type.Boolean() }),
    handler: async (r) => {
      const userId = pathInt(r, 'user_id');
      const streamId = pathInt(r, 'stream_id');
      const db = r.ctx.store.db;
      if (!fitsIdColumn(userId)) throw noSuchUser();
      const target = await accessUserById(db, r.user, userId);
      const { stream } = await accessStreamById(db, r.user, streamId, { allowAdmin: true });
      return { is_subscribed: await isSubscribed(db, target.id, stream.id) };
    },
  }),
  route({
    method: 'POST', path: '/users/me/subscriptions/properties', auth: 'user', summary: 'Update subscription settings', params: { subscription_data: propertyChanges },
    answer: Type.Object({ subscription_data: Type.Array(Type.Object({ stream_id: Type.Integer(), property: Type.String(), value: Type.Union([Type.String(), Type.Boolean()]) })) }),
    handler: async (r) => {
      const changes: PropertyChange[] = r.args.subscription_data;
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
  }),
  route({
    method: 'PATCH', path: '/users/me/subscriptions/muted_topics', auth: 'user', summary: 'Mute or unmute a topic',
    params: { stream_id: Opt(Int()), stream: Opt(Str({ description: 'The stream by name, instead of stream_id' })), topic: Str(), op: Str({ description: 'add or remove' }) },
    answer: NoAnswer,
    handler: async (r) => {
      const { stream_id: streamId, stream: streamName, topic, op } = r.args;
      if (streamId === undefined && streamName === undefined) throw badRequest("Please supply 'stream'.");
      if (streamId !== undefined && streamName !== undefined) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
      if (op !== 'add' && op !== 'remove') throw badRequest('Invalid op');
      // Before feature level 169, muting a muted topic or unmuting one that was not muted
      // was an error; since, both succeed and change nothing.
      const strict = r.ctx.config.featureLevel < 169;
      await transact(r.ctx, async (tx) => {
        if (op === 'add') {
          const { stream } = streamId !== undefined
            ? await accessStreamById(tx.db, r.user, streamId)
            : await accessStreamByName(tx.db, r.user, streamName!);
          if (!(await doSetUserTopicPolicy(tx, r.user, stream.id, topic, VisibilityPolicy.MUTED)) && strict) throw badRequest('Topic already muted');
          return;
        }
        // Unmuting needs no access to the stream, only that it exists (Zulip's rule; see streamToDropTopicPolicy).
        const id = streamId ?? (await streamByName(tx.db, r.user.realm_id, streamName!))?.id;
        if (id === undefined || !(await streamToDropTopicPolicy(tx.db, r.user, id, topic))) throw badRequest('Topic is not muted');
        if (!(await doSetUserTopicPolicy(tx, r.user, id, topic, VisibilityPolicy.INHERIT)) && strict) throw badRequest('Topic is not muted');
      });
      return {};
    },
  }),
];
