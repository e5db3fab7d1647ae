import { Role } from './roles.js';

/** Zulip's PreregistrationUser.INVITE_AS: the roles an invitation may grant. */
export const INVITE_AS_VALUES: readonly number[] = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];

/** Zulip's INVITATION_LINK_VALIDITY_DAYS. */
export const DEFAULT_INVITE_VALIDITY_MINUTES = 10 * 24 * 60;

/** Zulip's get_invitee_emails_set: comma or newline separated, "Name <address>" taken as the address. */
export function inviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    const email = (named ? named[1]! : part).trim();
    // A trailing comma or newline names nobody (Zulip would answer "Invalid address." for it).
    if (email !== '') out.add(email);
  }
  return [...out];
}

/** A confirmation key as Zulip's generate_key makes them: 24 lowercase letters and digits. */
export const CONFIRMATION_KEY = /^[a-z0-9]{24}$/;
