import crypto from 'node:crypto';
import type { RealmRow, UserRow } from '../rows.js';
import { isoWithOffset } from '../lib/time.js';
import { Role } from '../lib/roles.js';
import { realmSettings } from '../lib/realm-settings.js';
import { MEDIUM_AVATAR_SIZE } from '../lib/uploads.js';
import type { WireProfileValue, WireUser } from '../schemas/wire.js';
import {
  PER_USER_EMAIL_VISIBILITY_LEVEL, emailViewerOf, emailVisibilityOf, visibilityAllows, type EmailViewer,
} from '../lib/email-visibility.js';

export {
  PER_USER_EMAIL_VISIBILITY_LEVEL, dummyEmail, dummyEmailUserId, displayEmailOf, emailViewerOf, emailVisibilityOf,
  setDummyEmailDomain, viewerClass, visibilityAllows, type EmailViewer, type ViewerClass,
} from '../lib/email-visibility.js';

// An md5 per avatar per response added up (message lists repeat the same senders).
const hashes = new Map<string, string>();

function gravatarHash(email: string): string {
  let hash = hashes.get(email);
  if (hash === undefined) {
    if (hashes.size >= 50_000) hashes.clear();
    hash = crypto.createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    hashes.set(email, hash);
  }
  return hash;
}

export function gravatarUrl(email: string, version: number, medium = false): string {
  const hash = gravatarHash(email);
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? `&s=${MEDIUM_AVATAR_SIZE}` : ''}&version=${version}`;
}

export type AvatarFields = Pick<UserRow, 'realm_id' | 'avatar_source' | 'avatar_key' | 'delivery_email' | 'avatar_version'>;

/** Where an uploaded avatar's files live, without suffix (Zulip's user_avatar_path); undefined without one. */
export function avatarStorageBase(user: Pick<UserRow, 'realm_id' | 'avatar_key'>): string | undefined {
  return user.avatar_key === null ? undefined : `${user.realm_id}/${user.avatar_key}`;
}

/**
 * Relative, as Zulip's local upload backend makes them: clients resolve it against the
 * organization's URL (the push payload makes it absolute).
 */
function uploadedAvatarUrl(base: string, version: number, medium: boolean): string {
  return `/user_avatars/${base}${medium ? '-medium' : ''}.png?version=${version}`;
}

/** null tells a client_gravatar client to compute the gravatar URL itself (never for an uploaded avatar). */
export function avatarUrl(user: AvatarFields, clientGravatar: false, medium?: boolean): string;
export function avatarUrl(user: AvatarFields, clientGravatar: boolean, medium?: boolean): string | null;
export function avatarUrl(user: AvatarFields, clientGravatar: boolean, medium = false): string | null {
  const base = user.avatar_source === 'U' ? avatarStorageBase(user) : undefined;
  if (base !== undefined) return uploadedAvatarUrl(base, user.avatar_version, medium);
  if (clientGravatar && user.avatar_source === 'G') return null;
  return gravatarUrl(user.delivery_email, user.avatar_version, medium);
}

export interface UserPresentOpts {
  clientGravatar: boolean;
  /** Below feature level 163: whether the viewer may see delivery_email (administrators, or everyone by realm policy). */
  showDeliveryEmail: boolean;
  /**
   * From feature level 163: the viewer, whose access to each user's delivery_email follows
   * that user's own email_address_visibility; delivery_email is then always present, null
   * when hidden (showDeliveryEmail is ignored).
   */
  emailViewer?: EmailViewer | undefined;
  profileData?: Record<string, WireProfileValue> | undefined;
  /** The server's feature level: from 363 user objects have no is_billing_admin (can_manage_billing_group says it). */
  featureLevel?: number | undefined;
}

/** Level 363 removed is_billing_admin from user objects. */
export const BILLING_ADMIN_REMOVED_LEVEL = 363;



export function canSeeDeliveryEmail(viewer: UserRow, realm: RealmRow): boolean {
  return viewer.role <= Role.ADMINISTRATOR || realmSettings(realm.settings).email_address_visibility === 1;
}



/** From feature level 163: may `viewer` see `target`'s delivery_email? */
export const canSeeDeliveryEmailOf = (viewer: EmailViewer, target: Pick<UserRow, 'id' | 'is_bot' | 'settings'>, visibility = emailVisibilityOf(target)): boolean =>
  viewer.id === target.id || visibilityAllows(visibility, viewer.cls);

/** The presenter's delivery_email options for `viewer` at the server's level. */
export const deliveryEmailOpts = (viewer: UserRow, realm: RealmRow, featureLevel: number): Pick<UserPresentOpts, 'showDeliveryEmail' | 'emailViewer'> =>
  (featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL ? { showDeliveryEmail: false, emailViewer: emailViewerOf(viewer) } : { showDeliveryEmail: canSeeDeliveryEmail(viewer, realm) });

/** The User object of GET /users, GET /users/{id} and realm_user events. */
export function presentUser(u: UserRow, opts: UserPresentOpts): WireUser {
  const out: WireUser = {
    user_id: u.id,
    email: u.email,
    full_name: u.full_name,
    // From feature level 163 a client computes only gravatars of visible addresses (Zulip's client_gravatar_for_user).
    avatar_url: avatarUrl(u, opts.clientGravatar && (opts.emailViewer === undefined || emailVisibilityOf(u) === 1)),
    avatar_version: u.avatar_version,
    date_joined: isoWithOffset(u.date_joined),
    timezone: u.timezone,
    is_active: u.is_active === 1,
    is_admin: u.role <= Role.ADMINISTRATOR,
    is_owner: u.role === Role.OWNER,
    is_guest: u.role === Role.GUEST,
    is_billing_admin: u.is_billing_admin === 1,
    is_bot: u.is_bot === 1,
    bot_type: u.is_bot === 1 ? u.bot_type : null,
    role: u.role,
  };
  if ((opts.featureLevel ?? 0) >= BILLING_ADMIN_REMOVED_LEVEL) delete out.is_billing_admin;
  if (u.is_bot === 1) out.bot_owner_id = u.bot_owner_id;
  if (opts.emailViewer) out.delivery_email = canSeeDeliveryEmailOf(opts.emailViewer, u) ? u.delivery_email : null;
  else if (opts.showDeliveryEmail) out.delivery_email = u.delivery_email;
  if (opts.profileData !== undefined && u.is_bot !== 1) out.profile_data = opts.profileData;
  return out;
}
