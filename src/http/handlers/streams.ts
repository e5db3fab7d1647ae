import { allowsEmptyTopic, generalChatToEmpty, topicForClient } from '../../lib/empty-topic.js';
import { createHash } from 'node:crypto';
import { CompleteAnswer, done, NoAnswer, pathInt, route, type AuthedRequest, type Route } from '../route.js';
import { Bool, Default, Int, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { WireListedStream, WireStream } from '../../schemas/wire.js';
import { transact } from '../../actions/transaction.js';
import { accessStreamById, accessStreamByName, canReadHistory } from '../../access/stream.js';
import { contentGroupsFor } from '../../access/channel-access.js';
import { accessStreamForUpdate } from '../../access/stream-admin.js';
import { accessBotById } from '../../access/bot.js';
import { forLevel, presentStream, streamEmailAddress } from '../../presenters/stream.js';
import { badRequest } from '../../errors.js';
import { isAdminRole } from '../../lib/roles.js';
import { doEditStream } from '../../actions/stream-edit-request.js';
import { doDeactivateStream } from '../../actions/stream-delete.js';
import { deleteTopic } from '../../actions/topic-delete.js';
import { completeAnswer } from '../../lib/batch-budget.js';
import { doAddDefaultStream, doRemoveDefaultStream } from '../../actions/default-streams.js';
import { defaultStreams, listStreams, subscriberIds, topicsOf } from '../../reads/streams.js';
import { checkStreamDescription } from '../../actions/stream-create.js';
import { checkPostPolicy, streamGroupSettingParams, retentionDays, streamPolicyParams } from './stream-param-parsers.js';

const LIST_PARAMS = {
  include_public: Default(Bool(), true),
  include_web_public: Default(Bool(), false),
  include_subscribed: Default(Bool(), true),
  include_all_active: Default(Bool({ description: 'Every stream, private ones included (administrators)' }), false),
  include_default: Default(Bool(), false),
  include_owner_subscribed: Default(Bool({ description: 'For a bot: also the streams its owner is in' }), false),
  include_all: Opt(Bool({ description: 'Feature level 356 (was include_all_active): every stream with metadata access' })),
  exclude_archived: Default(Bool({ description: 'Feature level 315: false also lists archived streams' }), true),
  include_can_access_content: Default(Bool({ description: 'Feature level 356: every stream whose messages the user may read' }), false),
};

async function listStreamsFor(r: AuthedRequest<ArgsOf<typeof LIST_PARAMS>>): Promise<Array<Record<string, unknown>>> {
  const p = r.args;
  const filter = {
    includePublic: p.include_public,
    includeWebPublic: p.include_web_public,
    includeSubscribed: p.include_subscribed,
    includeAllActive: p.include_all ?? p.include_all_active,
    includeArchived: !p.exclude_archived,
    includeCanAccessContent: p.include_can_access_content,
    includeDefault: p.include_default,
    includeOwnerSubscribed: p.include_owner_subscribed,
  };
  // From level 356 include_all is for everyone (what they have metadata access to).
  if (filter.includeAllActive && !isAdminRole(r.user.role) && r.ctx.config.featureLevel < 356) throw badRequest('User not authorized for this query');
  const list = await listStreams(r.ctx.store.db, r.user, filter, r.ctx.config.featureLevel);
  const level = r.ctx.config.featureLevel;
  return list.map(({ stream, isDefault }) => (filter.includeDefault ? { ...forLevel(presentStream(stream, level), level), is_default: isDefault } : forLevel(presentStream(stream, level), level)));
}

const EDIT_PARAMS = {
  description: Opt(Str()),
  new_name: Opt(Str()),
  is_private: Opt(Bool()),
  is_web_public: Opt(Bool()),
  history_public_to_subscribers: Opt(Bool()),
  stream_post_policy: streamPolicyParams.stream_post_policy,
  is_announcement_only: Opt(Bool({ description: 'Deprecated: stream_post_policy 2' })),
  message_retention_days: streamPolicyParams.message_retention_days,
  can_remove_subscribers_group: streamPolicyParams.can_remove_subscribers_group,
  can_remove_subscribers_group_id: streamPolicyParams.can_remove_subscribers_group_id,
  can_administer_channel_group: streamPolicyParams.can_administer_channel_group,
  can_send_message_group: streamPolicyParams.can_send_message_group,
  can_add_subscribers_group: streamPolicyParams.can_add_subscribers_group,
  can_subscribe_group: streamPolicyParams.can_subscribe_group,
  is_default_stream: Opt(Bool({ description: 'Make it a default stream, or not (feature level 200)' })),
};

function parseEdit(r: AuthedRequest<ArgsOf<typeof EDIT_PARAMS>>) {
  const description = r.args.description;
  return {
    description: description === undefined ? undefined : checkStreamDescription(description),
    newName: r.args.new_name,
    isPrivate: r.args.is_private,
    isWebPublic: r.args.is_web_public,
    historyPublicToSubscribers: r.args.history_public_to_subscribers,
    streamPostPolicy: checkPostPolicy(r.args.stream_post_policy),
    isAnnouncementOnly: r.args.is_announcement_only,
    messageRetentionDays: retentionDays(r.args.message_retention_days),
    groupSettings: streamGroupSettingParams(r.args, true),
    isDefaultStream: r.args.is_default_stream,
    featureLevel: r.ctx.config.featureLevel,
  };
}

export const streamRoutes: Route[] = [
  route({
    method: 'GET', path: '/streams', auth: 'user', summary: 'Get all streams',
    params: LIST_PARAMS,
    answer: Type.Object({ streams: Type.Array(WireListedStream) }),
    handler: async (r) => ({ streams: await listStreamsFor(r) }),
  }),
  route({
    method: 'GET', path: '/streams/:stream_id', auth: 'user', summary: 'Get a stream by id', answer: Type.Object({ stream: WireStream }),
    handler: async (r) => {
      // From level 315 archived streams can be fetched (with is_archived).
      const { stream } = await accessStreamById(r.ctx.store.db, r.user, pathInt(r, 'stream_id'), { allowAdmin: true, allowArchived: r.ctx.config.featureLevel >= 315, featureLevel: r.ctx.config.featureLevel });
      return { stream: forLevel(presentStream(stream, r.ctx.config.featureLevel), r.ctx.config.featureLevel) };
    },
  }),
  route({
    method: 'GET', path: '/get_stream_id', auth: 'user', summary: 'Get a stream\'s id', params: { stream: Str() }, answer: Type.Object({ stream_id: Type.Integer() }),
    handler: async (r) => {
      const { stream } = await accessStreamByName(r.ctx.store.db, r.user, r.args.stream);
      return { stream_id: stream.id };
    },
  }),
  route({
    method: 'GET', path: '/streams/:stream_id/members', auth: 'user', summary: 'Get the subscribers of a stream',
    answer: Type.Object({ subscribers: Type.Array(Type.Integer()) }),
    handler: async (r) => {
      const db = r.ctx.store.db;
      const { stream } = await accessStreamById(db, r.user, pathInt(r, 'stream_id'), { allowAdmin: true, featureLevel: r.ctx.config.featureLevel });
      return { subscribers: [...(await subscriberIds(db, stream.id))] };
    },
  }),
  route({
    // Newer Zulip's endpoint, used by clients whose subscription objects lack email_address.
    method: 'GET', path: '/streams/:stream_id/email_address', auth: 'user', summary: 'Get a stream\'s email address', answer: Type.Object({ email: Type.String() }),
    params: { sender_id: Opt(Int({ description: 'Feature level 335: the user (the caller) or bot shown as the sender of mail to the address' })) },
    handler: async (r) => {
      const db = r.ctx.store.db;
      const { stream } = await accessStreamById(db, r.user, pathInt(r, 'stream_id'));
      // As Zulip's get_stream_email_address: the caller, or a bot the caller may administer;
      // each sender its own address (Parley receives no mail: the address is for display).
      const senderId = r.args.sender_id;
      // Zulip 10 (level 335) gives each creator and sender a token of their own.
      const tokenFor = (sender: number) => createHash('sha256').update(`${stream.email_token}:${r.user.id}:${sender}`).digest('hex').slice(0, 32);
      if (senderId === undefined) return { email: streamEmailAddress(stream) };
      if (senderId === r.user.id) return { email: streamEmailAddress(stream, tokenFor(senderId)) };
      const bot = await accessBotById(db, r.user, senderId);
      return { email: streamEmailAddress(stream, tokenFor(bot.id)) };
    },
  }),
  route({
    method: 'GET', path: '/users/me/:stream_id/topics', auth: 'user', summary: 'Get the topics of a stream',
    params: { allow_empty_topic_name: Default(Bool({ description: 'The empty topic as "" rather than its display name (feature level 334)' }), false) },
    answer: Type.Object({ topics: Type.Array(Type.Object({ name: Type.String(), max_id: Type.Integer() })) }),
    handler: async (r) => {
      const db = r.ctx.store.db;
      const level = r.ctx.config.featureLevel;
      const { stream, sub } = await accessStreamById(db, r.user, pathInt(r, 'stream_id'), { featureLevel: level });
      const topics = await topicsOf(db, r.user, stream, canReadHistory(r.user, stream, sub, await contentGroupsFor(db, r.user, level)));
      const allowEmpty = allowsEmptyTopic(r.args.allow_empty_topic_name, r.ctx.config.featureLevel);
      return { topics: topics.map((t) => ({ ...t, name: topicForClient(t.name, allowEmpty) })) };
    },
  }),
  route({
    method: 'PATCH', path: '/streams/:stream_id', auth: 'user', summary: 'Update a stream',
    params: EDIT_PARAMS,
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'stream_id');
      await transact(r.ctx, async (tx) => {
        const { stream } = await accessStreamForUpdate(tx.db, r.user, id, r.ctx.config.featureLevel, r.realm);
        await doEditStream(tx, r.realm, r.user, stream, parseEdit(r));
      });
      return {};
    },
  }),
  route({
    method: 'DELETE', path: '/streams/:stream_id', auth: 'user', summary: 'Archive a stream', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'stream_id');
      return done(transact(r.ctx, async (tx) => doDeactivateStream(tx, (await accessStreamForUpdate(tx.db, r.user, id, r.ctx.config.featureLevel, r.realm)).stream)));
    },
  }),
  route({
    method: 'POST', path: '/streams/:stream_id/delete_topic', auth: 'user', summary: 'Delete a topic', requires: 'admin', params: { topic_name: Str() },
    answer: CompleteAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'stream_id');
      // Level 334: the empty topic's display name names it.
      const topic = generalChatToEmpty(r.args.topic_name, r.ctx.config.featureLevel);
      const { stream } = await accessStreamById(r.ctx.store.db, r.user, id);
      return completeAnswer(r.ctx.config.featureLevel, await deleteTopic(r.ctx, r.user, stream, topic));
    },
  }),
  route({
    method: 'GET', path: '/default_streams', auth: 'user', summary: 'Get the default streams', answer: Type.Object({ default_streams: Type.Array(WireStream) }),
    handler: async (r) => ({ default_streams: (await defaultStreams(r.ctx.store.db, r.realm.id)).map((s) => forLevel(presentStream(s, r.ctx.config.featureLevel), r.ctx.config.featureLevel)) }),
  }),
  route({
    method: 'POST', path: '/default_streams', auth: 'user', summary: 'Add a default stream', requires: 'admin', params: { stream_id: Int() }, answer: NoAnswer,
    handler: async (r) => {
      const id = r.args.stream_id;
      return done(transact(r.ctx, async (tx) => doAddDefaultStream(tx, (await accessStreamById(tx.db, r.user, id)).stream)));
    },
  }),
  route({
    method: 'DELETE', path: '/default_streams', auth: 'user', summary: 'Remove a default stream', requires: 'admin', params: { stream_id: Int() }, answer: NoAnswer,
    handler: async (r) => {
      const id = r.args.stream_id;
      return done(transact(r.ctx, async (tx) => doRemoveDefaultStream(tx, (await accessStreamById(tx.db, r.user, id, { allowAdmin: true })).stream)));
    },
  }),
];
