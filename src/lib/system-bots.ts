/** Zulip's Notification Bot, as its clients know it (settings.NOTIFICATION_BOT). */
export const NOTIFICATION_BOT = { email: 'notification-bot@zulip.com', fullName: 'Notification Bot' } as const;

/** Zulip's Welcome Bot (settings.WELCOME_BOT): greets new users in a private message. */
export const WELCOME_BOT = { email: 'welcome-bot@zulip.com', fullName: 'Welcome Bot' } as const;

/** Every system bot an organization has, in the order they were introduced. */
export const SYSTEM_BOTS = [NOTIFICATION_BOT, WELCOME_BOT] as const;

/** The client name of messages the server writes itself, as Zulip's internal_send_* name it. */
export const INTERNAL_CLIENT = 'Internal';
