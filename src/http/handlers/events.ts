import { done, NoAnswer, route, type Route } from '../route.js';
import { AnyJson, Bool, Default, Int, Opt, Str, Type } from '../../schemas/params.js';
import type { Json } from '../params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { badRequest } from '../../errors.js';
import { queuesOf } from '../../events/manager.js';
import { EVENTS_PARAMS, onceClosed, serveEvents } from '../longpoll.js';
import { capList } from '../params.js';
import { PreSerialized } from '../route.js';
import { bytesWithShared } from '../../presenters/shared-json.js';
import { fetchInitialState, FETCH_TYPES } from '../../reads/register/index.js';
import type { Capabilities } from '../../events/queue.js';
import { parseNarrow } from '../../narrow/parse.js';
import { resolveNarrow } from '../../reads/narrow-resolve.js';
import { registerDefaultsOf } from '../../reads/bots.js';
import { versionFields } from '../../lib/version.js';
import { Role } from '../../lib/roles.js';
import { EMPTY_TOPIC_LEVEL } from '../../lib/empty-topic.js';

function stringList(name: string, raw: Json | undefined): string[] | null {
  const v = raw === undefined ? undefined : capList(name, raw, LIST_LIMITS.other);
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw badRequest(`${name} is not a list`);
  return v as string[];
}

/** The level from which linkifiers are templates, for clients that say they read them (Zulip's linkifier_url_template). */
const LINKIFIER_TEMPLATE_LEVEL = 176;

function capabilities(asked: Json | undefined, featureLevel: number): Capabilities {
  const raw = asked ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('client_capabilities is not a dict');
  const c = raw as Record<string, unknown>;
  const flag = (k: string) => c[k] === true;
  return {
    notification_settings_null: flag('notification_settings_null'),
    bulk_message_deletion: flag('bulk_message_deletion'),
    user_avatar_url_field_optional: flag('user_avatar_url_field_optional'),
    stream_typing_notifications: flag('stream_typing_notifications'),
    user_settings_object: flag('user_settings_object'),
    // A level-122 server knew no such capability: its clients get the format strings, asked or not.
    linkifier_url_template: featureLevel >= LINKIFIER_TEMPLATE_LEVEL && flag('linkifier_url_template'),
    linkifiers_withheld: featureLevel >= LINKIFIER_TEMPLATE_LEVEL && !flag('linkifier_url_template'),
    archived_channels: featureLevel >= 315 && flag('archived_channels'),
    // Unknown below level 334, where no topic is empty anyway.
    empty_topic_name: featureLevel >= EMPTY_TOPIC_LEVEL && flag('empty_topic_name'),
    include_deactivated_groups: featureLevel >= 294 ? flag('include_deactivated_groups') : featureLevel >= 290,
  };
}

const MAX_QUEUE_LIFESPAN_SECS = 7 * 86_400;

/** As Zulip: 0 means the idle timeout, which is also the least a client may ask for; a week at most. */
function queueLifespan(asked: number, idleSecs: number): number {
  return asked > 0 ? Math.min(Math.max(asked, idleSecs), MAX_QUEUE_LIFESPAN_SECS) : idleSecs;
}

export const eventRoutes: Route[] = [
  route({
    method: 'POST', path: '/register', auth: 'user', summary: 'Register an event queue',
    params: {
      event_types: Opt(AnyJson({ description: 'A JSON list of the event types to receive; null or absent for all' })),
      fetch_event_types: Opt(AnyJson({ description: 'A JSON list of the initial state to fetch; defaults to event_types' })),
      narrow: Opt(AnyJson({ description: 'Receive only the message events of this narrow: a list of [operator, operand] pairs' })),
      queue_lifespan_secs: Opt(Int({ description: 'How long the queue lives unpolled; 0 for the server default' })),
      client_capabilities: Opt(AnyJson({ description: 'A JSON dict of the optional event formats the client understands' })),
      // Its default is a bot's own setting: undefined here means "the caller's default".
      all_public_streams: Opt(Bool()),
      client_gravatar: Default(Bool(), false),
      apply_markdown: Default(Bool(), false),
      slim_presence: Default(Bool(), false),
      presence_history_limit_days: Opt(Int({ description: 'Days of presence history in `presences` (feature level 288; default 14)' })),
      include_subscribers: Default(Bool(), false),
    },
    answer: Type.Object({ queue_id: Type.String(), last_event_id: Type.Integer() }, { additionalProperties: true, description: 'And the initial state of each fetched type' }),
    handler: async (r) => {
      const eventTypes = stringList('event_types', r.args.event_types as Json | undefined);
      const fetchList = stringList('fetch_event_types', r.args.fetch_event_types as Json | undefined);
      const fetchTypes = fetchList ?? eventTypes ?? FETCH_TYPES;
      // A bot's defaults stand in for what the client leaves out (Zulip's do_events_register).
      const defaults = await registerDefaultsOf(r.ctx.store.db, r.user);
      const asked = parseNarrow(r.args.narrow ?? []);
      const narrowTerms = asked.length === 0 && defaults.streamName !== null ? parseNarrow([['stream', defaults.streamName]]) : asked;
      const narrow = await resolveNarrow(r.ctx.store.db, r.user, narrowTerms, true, r.ctx.config.featureLevel);
      const lifespan = r.args.queue_lifespan_secs ?? 0;
      const caps = capabilities(r.args.client_capabilities as Json | undefined, r.ctx.config.featureLevel);
      const allPublicStreams = r.args.all_public_streams ?? defaults.allPublicStreams;
      // Guests may not read public streams they are not in, so they may not listen to them either.
      if (allPublicStreams && r.user.role === Role.GUEST) throw badRequest('User not authorized for this query');
      const clientGravatar = r.args.client_gravatar;
      // The queue exists before the state is read, so nothing that happens meanwhile is lost.
      const { queue, stored } = queuesOf(r.ctx).create({
        userId: r.user.id, realmId: r.realm.id, eventTypes, narrow: narrow.terms,
        allPublicStreams, applyMarkdown: r.args.apply_markdown,
        clientGravatar, capabilities: caps, lifespanSecs: queueLifespan(lifespan, r.ctx.config.queueTimeoutSecs),
      });
      // In a cluster, before the client can poll another node for it.
      await stored;
      const state = await fetchInitialState(r.ctx.store.db, r.ctx.config, r.realm, r.user, new Set(fetchTypes), {
        clientGravatar, slimPresence: r.args.slim_presence, presenceHistoryLimitDays: r.args.presence_history_limit_days,
        includeSubscribers: r.args.include_subscribers, capabilities: caps,
        everyType: fetchList === null && eventTypes === null,
      });
      return new PreSerialized(bytesWithShared({ result: 'success', msg: '', queue_id: queue.id, last_event_id: -1, ...versionFields(r.ctx.config.featureLevel), ...state }));
    },
  }),
  route({
    method: 'GET', path: '/events', auth: 'user', summary: 'Get events from an event queue',
    params: EVENTS_PARAMS,
    answer: Type.Object({ events: Type.Array(Type.Object({ type: Type.String(), id: Type.Integer() }, { additionalProperties: true })), queue_id: Type.String() }),
    handler: async (r) => {
      // Over real HTTP this route is answered by src/http/longpoll.ts before Fastify routes;
      // it serves inject() and requests made while the server closes.
      return new PreSerialized(await serveEvents(r.ctx, r.user, r.args, (cb) => onceClosed(r.reply.raw, cb)));
    },
  }),
  route({
    method: 'DELETE', path: '/events', auth: 'user', summary: 'Delete an event queue', params: { queue_id: Str() }, answer: NoAnswer,
    handler: async (r) => done(queuesOf(r.ctx).delete(r.args.queue_id, r.user.id)),
  }),
];
