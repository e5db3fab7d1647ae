import type { BotServiceRow, UserRow } from '../rows.js';
import { BotType } from '../lib/roles.js';
import { avatarUrl } from './user.js';
import type { WireBot, WireBotService } from './wire-types.js';

/** What a Bot object shows beyond the user row: its default streams by name and its services. */
export interface BotExtras {
  defaultSendingStream: string | null;
  defaultEventsRegisterStream: string | null;
  services: BotServiceRow[];
}

export const NO_EXTRAS: BotExtras = { defaultSendingStream: null, defaultEventsRegisterStream: null, services: [] };

/** Zulip's get_service_dicts_for_bot: outgoing webhooks show their endpoint and token. */
export function presentServices(b: UserRow, services: BotServiceRow[]): WireBotService[] {
  if (b.bot_type !== BotType.OUTGOING_WEBHOOK) return [];
  return services.map((s) => ({ base_url: s.base_url, interface: s.interface, token: s.token }));
}

/** The Bot object of register's `realm_bots`, GET /bots and `realm_bot` add events. */
export function presentBot(b: UserRow, extras: BotExtras = NO_EXTRAS): WireBot {
  return {
    user_id: b.id, full_name: b.full_name, api_key: b.api_key, avatar_url: avatarUrl(b, false), email: b.email, bot_type: b.bot_type,
    default_sending_stream: extras.defaultSendingStream, default_events_register_stream: extras.defaultEventsRegisterStream,
    default_all_public_streams: b.default_all_public_streams === 1,
    is_active: b.is_active === 1, owner_id: b.bot_owner_id, services: presentServices(b, extras.services),
  };
}

/** POST /bots's answer: the new bot's key and defaults. */
export function presentCreatedBot(b: UserRow, extras: BotExtras = NO_EXTRAS): Record<string, unknown> {
  const { user_id, api_key, avatar_url, default_sending_stream, default_events_register_stream, default_all_public_streams } = presentBot(b, extras);
  return { user_id, api_key, avatar_url, default_sending_stream, default_events_register_stream, default_all_public_streams };
}

/**
 * GET /bots' element (Zulip's get_bots_backend bot_info: the email as `username`). `user_id`
 * is Parley's addition: the id PATCH and DELETE /bots/{bot_id} take.
 */
export function presentListedBot(b: UserRow, extras: BotExtras = NO_EXTRAS): Record<string, unknown> {
  return {
    username: b.email, user_id: b.id, full_name: b.full_name, api_key: b.api_key, avatar_url: avatarUrl(b, false),
    default_sending_stream: extras.defaultSendingStream, default_events_register_stream: extras.defaultEventsRegisterStream,
    default_all_public_streams: b.default_all_public_streams === 1,
  };
}

/**
 * PATCH /bots/{bot_id}'s answer (Zulip's patch_bot_backend): the service fields echo what
 * was asked (the interface defaults to 1), and `bot_owner` is the owner's email.
 */
export function presentPatchedBot(b: UserRow, extras: BotExtras, asked: { servicePayloadUrl?: string; serviceInterface: number }, ownerEmail?: string): Record<string, unknown> {
  return {
    full_name: b.full_name, avatar_url: avatarUrl(b, false), service_interface: asked.serviceInterface,
    service_payload_url: asked.servicePayloadUrl ?? null, config_data: null,
    default_sending_stream: extras.defaultSendingStream, default_events_register_stream: extras.defaultEventsRegisterStream,
    default_all_public_streams: b.default_all_public_streams === 1,
    ...(ownerEmail === undefined ? {} : { bot_owner: ownerEmail }),
  };
}
