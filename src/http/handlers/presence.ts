import { PreSerialized, route, type AuthedRequest, type Route } from '../route.js';
import { Bool, Default, Int, Opt, Str, Type } from '../../schemas/params.js';
import { WirePresences } from '../../schemas/wire.js';
import { writeAlone } from '../../actions/transaction.js';
import { accessUserByEmail, accessUserById } from '../../access/user.js';
import { badRequest, botRequestsRefused, noSuchUser } from '../../errors.js';
import { clientName } from '../../lib/client-name.js';
import { checkPresenceStatus, doUpdatePresence } from '../../actions/presence-update.js';
import { presenceAnswerJson, presenceDict, OFFLINE_THRESHOLD_SECS } from '../../presenters/presence.js';
import { presenceOf, presencesAnswer, type PresenceAsk } from '../../reads/presence.js';

const PRESENCES = Type.Object({
  server_timestamp: Type.Number(),
  presences: WirePresences,
  presence_last_update_id: Opt(Type.Integer({ description: 'The number of the last presence write the answer has (feature level 263): `last_update_id` next time.' })),
});

/** The answer around everyone's presence, as the server's level shapes it: `presence_last_update_id` from 263. */
async function presencesReply(r: AuthedRequest, ask: Omit<PresenceAsk, 'level'>): Promise<PreSerialized> {
  const now = Date.now() / 1000;
  const level = r.ctx.config.featureLevel;
  const answer = await presencesAnswer(r.ctx.store.db, r.realm, { ...ask, level }, Math.floor(now));
  return new PreSerialized(presenceAnswerJson(answer.json, now, level >= 263 ? answer.lastUpdateId : undefined));
}

export const presenceRoutes: Route[] = [
  route({
    method: 'POST', path: '/users/me/presence', auth: 'user', summary: 'Report your presence, and get everyone\'s',
    params: {
      status: Str({ description: 'active or idle' }),
      ping_only: Default(Bool({ description: 'Answer without everyone\'s presence' }), false),
      new_user_input: Default(Bool(), false),
      slim_presence: Default(Bool({ description: 'Keyed by user id, not email; the modern format from feature level 178' }), false),
      last_update_id: Opt(Int({ description: 'Only the presence written after this number (feature level 263; -1 at first); implies slim_presence' })),
      history_limit_days: Opt(Int({ description: 'Days of history wanted without a last_update_id above 0 (feature level 288; default 14)' })),
      client: Opt(Str()),
    },
    // With ping_only, neither key.
    answer: Type.Partial(PRESENCES),
    handler: async (r) => {
      if (r.user.is_bot === 1) throw botRequestsRefused();
      const status = checkPresenceStatus(r.args.status);
      const pingOnly = r.args.ping_only;
      // Read for its error only: Zulip checks it, and nothing uses it.
      void r.args.new_user_input;
      const level = r.ctx.config.featureLevel;
      // Before their levels these are read (for their errors) and not acted on.
      const sentLastUpdateId = r.args.last_update_id;
      const sentHistoryLimitDays = r.args.history_limit_days;
      const lastUpdateId = level >= 263 ? sentLastUpdateId : undefined;
      const historyLimitDays = level >= 288 ? sentHistoryLimitDays : undefined;
      // Zulip: a client sending last_update_id wants the modern API.
      const slim = r.args.slim_presence || lastUpdateId !== undefined;
      const client = clientName(r.args.client, r.req.headers['user-agent']);
      const now = Date.now() / 1000;
      await writeAlone(r.ctx, (tx) => doUpdatePresence(tx, r.realm, r.user, status, client, Math.floor(now)));
      if (pingOnly) return {};
      return presencesReply(r, { slim, lastUpdateId, historyLimitDays });
    },
  }),
  route({
    method: 'GET', path: '/realm/presence', auth: 'user', summary: 'Get everyone\'s presence',
    params: { slim_presence: Default(Bool({ description: 'Keyed by user id, not email' }), false) },
    answer: PRESENCES,
    handler: async (r) => presencesReply(r, { slim: r.args.slim_presence }),
  }),
  route({
    method: 'GET', path: '/users/:user_id_or_email/presence', auth: 'user', summary: 'Get a user\'s presence',
    answer: Type.Object({ presence: Type.Record(Type.String(), Type.Object({ status: Type.String(), timestamp: Type.Integer() })) }),
    handler: async (r) => {
      const key = r.path.user_id_or_email ?? '';
      const target = /^\d+$/.test(key)
        ? await accessUserById(r.ctx.store.db, r.user, Number(key), { allowBots: true, allowDeactivated: true })
        : await accessUserByEmail(r.ctx.store.db, r.user, key, r.realm, r.ctx.config.featureLevel);
      if (target.is_active !== 1) throw noSuchUser();
      if (target.is_bot === 1) throw badRequest('Presence is not supported for bot users.');
      const row = await presenceOf(r.ctx.store.db, target);
      if (!row) throw badRequest(`No presence data for ${target.email}`);
      const now = Math.floor(Date.now() / 1000);
      // This endpoint shows status and timestamp only, and says offline after the threshold.
      const dict = presenceDict(row, now, r.ctx.config.featureLevel) as Record<string, { status: string; timestamp: number }>;
      const presence: Record<string, { status: string; timestamp: number }> = {};
      for (const [k, v] of Object.entries(dict)) presence[k] = { status: v.status, timestamp: v.timestamp };
      if (now - presence.aggregated!.timestamp > OFFLINE_THRESHOLD_SECS) presence.aggregated!.status = 'offline';
      return { presence };
    },
  }),
];
