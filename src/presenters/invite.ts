import type { InviteRow } from '../rows.js';
import type { WireInvite } from '../schemas/wire.js';

/**
 * An invitation as GET /invites lists it (Zulip 5's do_get_user_invites): email invites and
 * reusable links. The email is null only for links (the row's column serves both kinds).
 */
export function presentInvite(invite: InviteRow, linkUrl: string, featureLevel: number): WireInvite {
  const common = { invited_by_user_id: invite.referred_by, invited: invite.invited_at, expiry_date: invite.expires, id: invite.id, invited_as: invite.invited_as };
  if (invite.is_multiuse === 1) return { ...common, link_url: linkUrl, is_multiuse: true };
  // Feature level 267: email invitations say whether the inviter hears of the sign-up.
  const notify = featureLevel >= 267 ? { notify_referrer_on_join: invite.notify_referrer_on_join === 1 } : {};
  return { email: invite.email!, ...common, is_multiuse: false, ...notify };
}
