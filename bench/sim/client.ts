/**
 * What a simulated user sends when it registers, as the two clients whose traffic it
 * copies (see /work/shared/docs/client-compat.md): zulip-terminal (an API-key client)
 * and Parley's own web app (all event types and all initial state).
 */
export interface ClientProfile { userAgent: string; register: Record<string, string> }

const TERMINAL: ClientProfile = {
  userAgent: 'ZulipTerminal/0.7.0 Linux',
  register: {
    event_types: JSON.stringify(['message', 'update_message', 'reaction', 'submessage', 'subscription', 'typing', 'update_message_flags', 'user_settings', 'realm_emoji', 'realm_user']),
    fetch_event_types: JSON.stringify(['realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics', 'realm_user',
      'realm_user_groups', 'user_settings', 'realm_emoji', 'custom_profile_fields', 'zulip_version']),
    client_gravatar: 'true', apply_markdown: 'true', include_subscribers: 'true', narrow: '[]',
  },
};

const WEB: ClientProfile = {
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  register: {
    apply_markdown: 'true', client_gravatar: 'false', slim_presence: 'false', include_subscribers: 'false',
    client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: false, stream_typing_notifications: true, user_settings_object: true }),
  },
};

export const clientProfile = (name: 'terminal' | 'web'): ClientProfile => (name === 'web' ? WEB : TERMINAL);
