/** Zulip's Notification Bot, as its clients know it (settings.NOTIFICATION_BOT). */
export const NOTIFICATION_BOT = { email: 'notification-bot@zulip.com', fullName: 'Notification Bot' } as const;

/** The client name of messages the server writes itself, as Zulip's internal_send_* name it. */
export const INTERNAL_CLIENT = 'Internal';
