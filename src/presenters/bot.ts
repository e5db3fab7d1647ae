import type { UserRow } from '../rows.js';
import { avatarUrl } from './user.js';

/** The Bot object of register's `realm_bots` and `realm_bot` add events. */
export function presentBot(b: UserRow): Record<string, unknown> {
  return {
    user_id: b.id, full_name: b.full_name, api_key: b.api_key, avatar_url: avatarUrl(b, false), email: b.email, bot_type: b.bot_type,
    default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false,
    is_active: b.is_active === 1, owner_id: b.bot_owner_id, services: [],
  };
}

/** POST /bots's answer: the new bot's key and defaults. */
export function presentCreatedBot(b: UserRow): Record<string, unknown> {
  const { user_id, api_key, avatar_url, default_sending_stream, default_events_register_stream, default_all_public_streams } = presentBot(b);
  return { user_id, api_key, avatar_url, default_sending_stream, default_events_register_stream, default_all_public_streams };
}
