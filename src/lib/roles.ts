/** Zulip's role integers. */
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

export const ROLE_VALUES: number[] = Object.values(Role);

export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

export const isAdminRole = (role: number) => role <= Role.ADMINISTRATOR;
export const isModeratorOrAbove = (role: number) => role <= Role.MODERATOR;
