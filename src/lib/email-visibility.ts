import type { RealmRow, UserRow } from '../rows.js';
import { Role } from './roles.js';
import { userSettings } from './user-settings.js';

// Feature level 163's per-user email_address_visibility: who sees an address, and the
// dummy `user{id}@host` shown instead (used by presenters and by access's lookups).

/** The level that made email_address_visibility a per-user setting and delivery_email always present. */
export const PER_USER_EMAIL_VISIBILITY_LEVEL = 163;

let dummyEmailDomain = 'localhost';

/** Set once per process from the external URL: the host the dummy addresses name. */
export function setDummyEmailDomain(domain: string): void {
  dummyEmailDomain = domain;
}

/** The organization's host without a port (Zulip's get_fake_email_domain of realm.host). */
const realmEmailHost = (realm: Pick<RealmRow, 'string_id'>): string =>
  (realm.string_id === '' ? dummyEmailDomain : `${realm.string_id}.${dummyEmailDomain}`);

/**
 * From feature level 163, the API `email` of a user whose email_address_visibility is not
 * "everyone" (Zulip's get_display_email_address): `user{id}@{realm host}`, stored in the
 * `email` column when the setting changes, as Zulip stores it in UserProfile.email.
 */
export const dummyEmail = (userId: number, realm: Pick<RealmRow, 'string_id'>): string => `user${userId}@${realmEmailHost(realm)}`;

/** The address the API shows for `u` with this visibility (Zulip's get_display_email_address). */
export const displayEmailOf = (u: Pick<UserRow, 'id' | 'delivery_email'>, realm: Pick<RealmRow, 'string_id'>, visibility: number): string =>
  (visibility === 1 ? u.delivery_email : dummyEmail(u.id, realm));

/** The user id a dummy address of this organization names (Zulip's get_dummy_email_address_for_display_regex), if it is one. */
export function dummyEmailUserId(email: string, realm: Pick<RealmRow, 'string_id'>): number | undefined {
  const suffix = `@${realmEmailHost(realm)}`;
  if (!email.startsWith('user') || !email.endsWith(suffix)) return undefined;
  const digits = email.slice(4, email.length - suffix.length);
  return /^\d{1,10}$/.test(digits) ? Number(digits) : undefined;
}

/** What decides a viewer's access to others' addresses (Zulip's can_access_delivery_email): who, and the role's class. */
export interface EmailViewer { id: number; cls: ViewerClass }
export type ViewerClass = 'admin' | 'moderator' | 'member' | 'guest';

export const viewerClass = (role: number): ViewerClass =>
  (role <= Role.ADMINISTRATOR ? 'admin' : role === Role.MODERATOR ? 'moderator' : role === Role.GUEST ? 'guest' : 'member');
export const emailViewerOf = (u: Pick<UserRow, 'id' | 'role'>): EmailViewer => ({ id: u.id, cls: viewerClass(u.role) });

/** A user's email_address_visibility; bots' is always "everyone", as Zulip creates them. */
export const emailVisibilityOf = (u: Pick<UserRow, 'is_bot' | 'settings'>): number =>
  (u.is_bot === 1 ? 1 : Number(userSettings(u.settings).email_address_visibility));

/** Zulip's can_access_delivery_email for a viewer other than the user: 1 everyone, 2 members, 3 admins, 4 nobody, 5 moderators. */
export function visibilityAllows(visibility: number, cls: ViewerClass): boolean {
  switch (visibility) {
    case 1: return true;
    case 2: return cls !== 'guest';
    case 3: return cls === 'admin';
    case 5: return cls === 'admin' || cls === 'moderator';
    default: return false;
  }
}
