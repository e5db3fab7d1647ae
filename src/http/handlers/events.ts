import type { AuthedRequest, Route } from '../route.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { badRequest } from '../../errors.js';
import { queuesOf } from '../../events/manager.js';
import { onceClosed, serveEvents } from '../longpoll.js';
import { PreSerialized } from '../route.js';
import { stringifyWithShared } from '../../presenters/shared-json.js';
import { fetchInitialState, FETCH_TYPES } from '../../reads/register/index.js';
import type { Capabilities } from '../../events/queue.js';
import { parseNarrow } from '../../narrow/parse.js';
import { resolveNarrow } from '../../reads/narrow-resolve.js';
import { registerDefaultsOf } from '../../reads/bots.js';
import { versionFields } from '../../lib/version.js';
import { Role } from '../../lib/roles.js';

function stringList(r: AuthedRequest, name: string): string[] | null {
  const v = r.params.optJsonList(name, LIST_LIMITS.other);
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw badRequest(`${name} is not a list`);
  return v as string[];
}

function capabilities(r: AuthedRequest): Capabilities {
  const raw = r.params.optJson('client_capabilities') ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('client_capabilities is not a dict');
  const c = raw as Record<string, unknown>;
  const flag = (k: string) => c[k] === true;
  return {
    notification_settings_null: flag('notification_settings_null'),
    bulk_message_deletion: flag('bulk_message_deletion'),
    user_avatar_url_field_optional: flag('user_avatar_url_field_optional'),
    stream_typing_notifications: flag('stream_typing_notifications'),
    user_settings_object: flag('user_settings_object'),
  };
}

const MAX_QUEUE_LIFESPAN_SECS = 7 * 86_400;

/** As Zulip: 0 means the idle timeout, which is also the least a client may ask for; a week at most. */
function queueLifespan(asked: number, idleSecs: number): number {
  return asked > 0 ? Math.min(Math.max(asked, idleSecs), MAX_QUEUE_LIFESPAN_SECS) : idleSecs;
}

export const eventRoutes: Route[] = [
  {
    method: 'POST', path: '/register', auth: 'user',
    handler: async (r) => {
      const eventTypes = stringList(r, 'event_types');
      const fetchTypes = stringList(r, 'fetch_event_types') ?? eventTypes ?? FETCH_TYPES;
      // A bot's defaults stand in for what the client leaves out (Zulip's do_events_register).
      const defaults = await registerDefaultsOf(r.ctx.store.db, r.user);
      const asked = parseNarrow(r.params.optJson('narrow') ?? []);
      const narrowTerms = asked.length === 0 && defaults.streamName !== null ? parseNarrow([['stream', defaults.streamName]]) : asked;
      const narrow = await resolveNarrow(r.ctx.store.db, r.user, narrowTerms, true);
      const lifespan = r.params.optInt('queue_lifespan_secs') ?? 0;
      const caps = capabilities(r);
      const allPublicStreams = r.params.bool('all_public_streams', defaults.allPublicStreams);
      // Guests may not read public streams they are not in, so they may not listen to them either.
      if (allPublicStreams && r.user.role === Role.GUEST) throw badRequest('User not authorized for this query');
      const clientGravatar = r.params.bool('client_gravatar', false);
      // The queue exists before the state is read, so nothing that happens meanwhile is lost.
      const { queue, stored } = queuesOf(r.ctx).create({
        userId: r.user.id, realmId: r.realm.id, eventTypes, narrow: narrow.terms,
        allPublicStreams, applyMarkdown: r.params.bool('apply_markdown', false),
        clientGravatar, capabilities: caps, lifespanSecs: queueLifespan(lifespan, r.ctx.config.queueTimeoutSecs),
      });
      // In a cluster, before the client can poll another node for it.
      await stored;
      const state = await fetchInitialState(r.ctx.store.db, r.ctx.config, r.realm, r.user, new Set(fetchTypes), {
        clientGravatar, slimPresence: r.params.bool('slim_presence', false),
        includeSubscribers: r.params.bool('include_subscribers', false), capabilities: caps,
      });
      return new PreSerialized(stringifyWithShared({ result: 'success', msg: '', queue_id: queue.id, last_event_id: -1, ...versionFields(), ...state }));
    },
  },
  {
    method: 'GET', path: '/events', auth: 'user',
    handler: async (r) => {
      // Over real HTTP this route is answered by src/http/longpoll.ts before Fastify routes;
      // it serves inject() and requests made while the server closes.
      return new PreSerialized(await serveEvents(r.ctx, r.user, r.params, (cb) => onceClosed(r.reply.raw, cb)));
    },
  },
  {
    method: 'DELETE', path: '/events', auth: 'user',
    handler: async (r) => {
      await queuesOf(r.ctx).delete(r.params.str('queue_id'), r.user.id);
      return {};
    },
  },
];
