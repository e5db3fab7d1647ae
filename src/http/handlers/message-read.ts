import { PreSerialized, pathInt, route, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, IntList, Opt, Str, Type } from '../../schemas/params.js';
import { WireMessage } from '../../schemas/wire.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { badRequest, incompatibleParameters, missingArgument } from '../../errors.js';
import { allowsEmptyTopic } from '../../lib/empty-topic.js';
import { accessMessage } from '../../access/message.js';
import { fetchMessages, matchesNarrow, messageById, type FetchParams } from '../../reads/messages.js';

export const NARROW = 'A list of narrow terms: {"operator", "operand", "negated"} dicts or [operator, operand] pairs';
const formatting = {
  allow_empty_topic_name: Default(Bool({ description: 'The empty topic as "" rather than its display name (feature level 334)' }), false),
  apply_markdown: Default(Bool({ description: 'Rendered HTML (true) or the raw Markdown (false)' }), true),
  client_gravatar: Default(Bool({ description: 'null avatar_url for Gravatar users, which the client computes' }), true),
};

/** Zulip's parse_anchor_value. */
export function anchorOf(useFirstUnread: boolean, raw: string | undefined): FetchParams['anchor'] {
  if (useFirstUnread) return 'first_unread';
  if (raw === undefined) throw badRequest("Missing 'anchor' argument.");
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest('Invalid anchor');
  return Math.max(0, Number(raw.trim()));
}

export const messageReadRoutes: Route[] = [
  route({
    method: 'GET', path: '/messages', auth: 'user', summary: 'Get messages',
    params: {
      use_first_unread_anchor: Default(Bool({ description: 'Deprecated: anchor=first_unread' }), false),
      anchor: Opt(Str({ description: 'A message id, or newest, oldest or first_unread' })),
      num_before: Opt(Int({ description: 'Required unless message_ids is given' })), num_after: Opt(Int({ description: 'Required unless message_ids is given' })),
      include_anchor: Default(Bool(), true),
      narrow: Opt(AnyJson({ description: NARROW })),
      message_ids: Opt(IntList(LIST_LIMITS.messageIds, { description: 'Feature level 300: these messages (of the narrow) instead of a window around an anchor' })),
      ...formatting,
    },
    answer: Type.Object({
      anchor: Type.Optional(Type.Integer({ description: 'Absent when message_ids was given' })), found_newest: Type.Boolean(), found_oldest: Type.Boolean(), found_anchor: Type.Boolean(),
      history_limited: Type.Boolean(), messages: Type.Array(WireMessage),
    }),
    handler: async (r) => {
      const ids = r.args.message_ids;
      // Zulip's get_messages_backend: message_ids or a window, not both (a zero count is no window).
      if (ids !== undefined && (r.args.num_before || r.args.num_after || r.args.anchor !== undefined || r.args.use_first_unread_anchor)) {
        throw incompatibleParameters(['num_before', 'num_after', 'anchor', 'message_ids', 'include_anchor', 'use_first_unread_anchor']);
      }
      if (ids === undefined && r.args.num_before === undefined) throw missingArgument('num_before');
      if (ids === undefined && r.args.num_after === undefined) throw missingArgument('num_after');
      return new PreSerialized(await fetchMessages(r.ctx.store.db, r.user, r.realm, {
        anchor: ids !== undefined ? 'newest' : anchorOf(r.args.use_first_unread_anchor, r.args.anchor),
        numBefore: r.args.num_before ?? 0,
        numAfter: r.args.num_after ?? 0,
        includeAnchor: ids !== undefined ? false : r.args.include_anchor,
        narrow: r.args.narrow ?? [],
        applyMarkdown: r.args.apply_markdown,
        clientGravatar: r.args.client_gravatar,
        featureLevel: r.ctx.config.featureLevel,
        messageIds: ids,
        allowEmptyTopicName: allowsEmptyTopic(r.args.allow_empty_topic_name, r.ctx.config.featureLevel),
      }));
    },
  }),
  route({
    method: 'GET', path: '/messages/matches_narrow', auth: 'user', summary: 'Check which messages match a narrow',
    params: { msg_ids: IntList(LIST_LIMITS.messageIds), narrow: AnyJson({ description: NARROW }) },
    answer: Type.Object({ messages: Type.Record(Type.String(), Type.Object({ match_content: Type.String(), match_subject: Type.String() })) }),
    handler: async (r) => {
      const ids = r.args.msg_ids;
      return { messages: await matchesNarrow(r.ctx.store.db, r.user, ids, r.args.narrow) };
    },
  }),
  route({
    method: 'GET', path: '/messages/:message_id', auth: 'user', summary: 'Fetch a single message',
    params: formatting,
    answer: Type.Object({ raw_content: Type.String(), message: WireMessage }),
    handler: async (r) => {
      const { message, flags } = await accessMessage(r.ctx.store.db, r.user, pathInt(r, 'message_id'), r.ctx.config.featureLevel);
      return messageById(r.ctx.store.db, r.realm, message, flags, {
        applyMarkdown: r.args.apply_markdown, clientGravatar: r.args.client_gravatar, featureLevel: r.ctx.config.featureLevel,
        viewerId: r.user.id, allowEmptyTopicName: allowsEmptyTopic(r.args.allow_empty_topic_name, r.ctx.config.featureLevel),
      });
    },
  }),
];
