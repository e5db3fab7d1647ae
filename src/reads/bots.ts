import type { BotServiceRow, Q, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { botServices } from '../store/repos/bot-services.js';
import { streams } from '../store/repos/streams.js';
import { isAdminRole } from '../lib/roles.js';
import { presentBot, presentCreatedBot, presentListedBot, presentPatchedBot, type BotExtras } from '../presenters/bot.js';

/** Each bot's default stream names and services, in two queries for any number of bots. */
export async function botExtrasOf(q: Q, bots: UserRow[]): Promise<Map<number, BotExtras>> {
  const streamIds = [...new Set(bots.flatMap((b) => [b.default_sending_stream_id, b.default_events_register_stream_id]).filter((id): id is number => id !== null))];
  const [services, streamRows] = await Promise.all([
    botServices.listByBots(q, bots.map((b) => b.id)),
    streamIds.length ? streams.listByIds(q, streamIds) : Promise.resolve([]),
  ]);
  const nameOf = new Map(streamRows.map((s) => [s.id, s.name]));
  return new Map(bots.map((b) => [b.id, {
    defaultSendingStream: b.default_sending_stream_id === null ? null : nameOf.get(b.default_sending_stream_id) ?? null,
    defaultEventsRegisterStream: b.default_events_register_stream_id === null ? null : nameOf.get(b.default_events_register_stream_id) ?? null,
    services: services.filter((s) => s.bot_id === b.id),
  }]));
}

/** Bot objects, as register's `realm_bots` and GET /bots show them. */
export async function presentBotsOf(q: Q, bots: UserRow[]): Promise<Record<string, unknown>[]> {
  const extras = await botExtrasOf(q, bots);
  return bots.map((b) => presentBot(b, extras.get(b.id)));
}

/**
 * GET /bots: the caller's active bots, oldest first; every active bot of the organization
 * for an administrator (issue 21; Zulip lists only the caller's own).
 */
export async function listBotsFor(q: Q, user: UserRow): Promise<Record<string, unknown>[]> {
  const bots = (await users.listBots(q, user.realm_id, isAdminRole(user.role) ? null : user.id)).filter((b) => b.is_active === 1);
  const extras = await botExtrasOf(q, bots);
  return bots.map((b) => presentListedBot(b, extras.get(b.id)));
}

/** PATCH /bots/{bot_id}'s answer for the bot as the action left it. */
export async function patchedBotAnswer(q: Q, bot: UserRow, asked: { servicePayloadUrl?: string; serviceInterface: number }): Promise<Record<string, unknown>> {
  const [extras, owner] = await Promise.all([
    botExtrasOf(q, [bot]),
    bot.bot_owner_id === null ? Promise.resolve(undefined) : users.findById(q, bot.bot_owner_id),
  ]);
  return presentPatchedBot(bot, extras.get(bot.id)!, asked, owner?.email);
}

/**
 * What register takes from a bot's settings (Zulip's _default_all_public_streams and
 * _default_narrow): its default of all_public_streams when the client sends none, and
 * its default events stream as the narrow when the client asks for no narrow. Humans'
 * defaults are false and none, so this applies to anyone.
 */
export async function registerDefaultsOf(q: Q, user: UserRow): Promise<{ allPublicStreams: boolean; streamName: string | null }> {
  const id = user.default_events_register_stream_id;
  const stream = id === null ? undefined : await streams.findById(q, id);
  return { allPublicStreams: user.default_all_public_streams === 1, streamName: stream?.name ?? null };
}

/** POST /bots' answer, the default streams by their stored names. */
export async function createdBotAnswer(q: Q, bot: UserRow): Promise<Record<string, unknown>> {
  return presentCreatedBot(bot, (await botExtrasOf(q, [bot])).get(bot.id));
}

/** An active outgoing-webhook bot of the realm and its services (what a delivery calls), or undefined. */
export async function outgoingServiceBot(q: Q, realmId: number, botId: number): Promise<{ bot: UserRow; services: BotServiceRow[] } | undefined> {
  const bot = await users.findInRealm(q, realmId, botId);
  if (!bot || bot.is_active !== 1 || bot.is_bot !== 1) return undefined;
  return { bot, services: await botServices.listByBots(q, [bot.id]) };
}
