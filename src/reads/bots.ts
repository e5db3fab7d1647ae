import type { BotServiceRow, Q, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { botServices } from '../store/repos/bot-services.js';
import { streams } from '../store/repos/streams.js';
import { presentBot, type BotExtras } from '../presenters/bot.js';

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

/** An active outgoing-webhook bot of the realm and its services (what a delivery calls), or undefined. */
export async function outgoingServiceBot(q: Q, realmId: number, botId: number): Promise<{ bot: UserRow; services: BotServiceRow[] } | undefined> {
  const bot = await users.findInRealm(q, realmId, botId);
  if (!bot || bot.is_active !== 1 || bot.is_bot !== 1) return undefined;
  return { bot, services: await botServices.listByBots(q, [bot.id]) };
}
