import crypto from 'node:crypto';
import type { RealmRow, UserRow } from '../rows.js';
import { isoWithOffset } from '../lib/time.js';
import { Role } from '../lib/roles.js';
import { realmSettings } from '../lib/realm-settings.js';
import type { WireUser } from './wire-types.js';

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

export function gravatarUrl(email: string, version: number): string {
  const hash = gravatarHash(email);
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}`;
}

/** null tells a client_gravatar client to compute the gravatar URL itself. */
export function avatarUrl(user: Pick<UserRow, 'avatar_source' | 'delivery_email' | 'avatar_version'>, clientGravatar: boolean): string | null {
  if (user.avatar_source === 'G') return clientGravatar ? null : gravatarUrl(user.delivery_email, user.avatar_version);
  return gravatarUrl(user.delivery_email, user.avatar_version);
}

export interface UserPresentOpts {
  clientGravatar: boolean;
  /** Whether the viewer may see delivery_email (administrators, or everyone by realm policy). */
  showDeliveryEmail: boolean;
  profileData?: Record<string, { value: string; rendered_value?: string }> | undefined;
}

export function canSeeDeliveryEmail(viewer: UserRow, realm: RealmRow): boolean {
  return viewer.role <= Role.ADMINISTRATOR || realmSettings(realm.settings).email_address_visibility === 1;
}

/** The User object of GET /users, GET /users/{id} and realm_user events. */
export function presentUser(u: UserRow, opts: UserPresentOpts): WireUser {
  const out: WireUser = {
    user_id: u.id,
    email: u.email,
    full_name: u.full_name,
    avatar_url: avatarUrl(u, opts.clientGravatar),
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
  if (u.is_bot === 1) out.bot_owner_id = u.bot_owner_id;
  if (opts.showDeliveryEmail) out.delivery_email = u.delivery_email;
  if (opts.profileData !== undefined && u.is_bot !== 1) out.profile_data = opts.profileData;
  return out;
}
