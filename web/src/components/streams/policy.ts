/**
 * Who may do what with streams, as the client can tell from register's state (the server
 * decides in the end; the screens show its words when it refuses): the organization's
 * create policies (feature level 122's `realm_create_*_stream_policy`, or the later
 * `realm_can_create_*_channel_group` group settings) and who administers a stream
 * (organization administrators, and from feature level 325 `can_administer_channel_group`).
 */
import { t } from '../../i18n';
import type { State, Stream } from '../../types';

type Reg = Record<string, unknown>;
type Group = { id: number; members: number[]; direct_subgroup_ids: number[] };
type GroupValue = number | { direct_members?: number[]; direct_subgroups?: number[] };

export const reg = (s: State): Reg => s.reg as unknown as Reg;

export const myRole = (s: State): number => {
  const u = s.usersById.get(s.me) as { role?: number } | undefined;
  return u?.role ?? (s.reg.is_owner ? 100 : s.reg.is_admin ? 200 : 400);
};

/** Whether the viewer belongs to a group-setting value (a group id, or direct members and subgroups). */
export function inGroup(s: State, value: GroupValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  const groups = new Map(((reg(s).realm_user_groups ?? []) as Group[]).map((g) => [g.id, g]));
  const seen = new Set<number>();
  const member = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const g = groups.get(id);
    return !!g && (g.members.includes(s.me) || g.direct_subgroup_ids.some(member));
  };
  if (typeof value === 'number') return member(value);
  return (value.direct_members ?? []).includes(s.me) || (value.direct_subgroups ?? []).some(member);
}

/** Zulip's common policy values: 1 members, 2 administrators, 3 full members, 4 moderators, 6 nobody, 7 owners. */
function policyAllows(s: State, policy: unknown): boolean {
  const role = myRole(s);
  switch (policy) {
    case 1: case 3: return role <= 400;
    case 2: return role <= 200;
    case 4: return role <= 300;
    case 6: return false;
    case 7: return role <= 100;
    default: return true;
  }
}

export type Privacy = 'public' | 'private-protected' | 'private-shared' | 'web-public';

/** Which kinds of stream the viewer may create (the policy, or the group setting of later levels). */
export function mayCreate(s: State, kind: Privacy): boolean {
  const r = reg(s);
  if (myRole(s) >= 600) return false;
  if (kind === 'web-public' && r.realm_enable_spectator_access !== true) return false;
  const key = kind === 'public' ? 'public' : kind === 'web-public' ? 'web_public' : 'private';
  const group = r[`realm_can_create_${key}_channel_group`] as GroupValue | undefined;
  if (group !== undefined) return inGroup(s, group);
  const policy = r[`realm_create_${key}_stream_policy`];
  if (policy === undefined && kind === 'web-public') return myRole(s) <= 100;
  return policyAllows(s, policy);
}

/** Organization administrators; from feature level 325, also the stream's own administrators. */
export function mayAdminister(s: State, st: Stream): boolean {
  if (s.reg.is_admin === true) return true;
  const v = (st as { can_administer_channel_group?: GroupValue }).can_administer_channel_group;
  return v !== undefined && inGroup(s, v);
}

export const privacyOf = (st: Pick<Stream, 'invite_only' | 'is_web_public' | 'history_public_to_subscribers'>): Privacy =>
  st.is_web_public ? 'web-public' : !st.invite_only ? 'public' : st.history_public_to_subscribers ? 'private-shared' : 'private-protected';

/** The API's three flags for a privacy choice. */
export const privacyParams = (p: Privacy) => ({
  invite_only: p === 'private-protected' || p === 'private-shared',
  history_public_to_subscribers: p !== 'private-protected',
  is_web_public: p === 'web-public',
});

/** Zulip's privacy options, with their explanations. */
export const PRIVACY = (): Array<[Privacy, string, string]> => [
  ['web-public', t('Web-public'), t('Organization members can join (guests must be invited by a subscriber); anyone on the Internet can view complete message history without creating an account')],
  ['public', t('Public'), t('Organization members can join (guests must be invited by a subscriber); organization members can view complete message history without joining')],
  ['private-shared', t('Private, shared history'), t('Must be invited by a subscriber; new subscribers can view complete message history; hidden from non-administrator users')],
  ['private-protected', t('Private, protected history'), t('Must be invited by a subscriber; new subscribers can only see messages sent after they join; hidden from non-administrator users')],
];

/** stream_post_policy's values. */
export const POST_POLICY = (): Array<[number, string]> => [
  [1, t('All stream members can post')],
  [3, t('Only organization full members can post')],
  [4, t('Only organization administrators and moderators can post')],
  [2, t('Only organization administrators can post')],
];

export const privacyIcon = (st: Stream): string => (st.invite_only ? '🔒' : st.is_web_public ? '🌐' : '#');
export const privacyName = (st: Stream): string => PRIVACY().find(([k]) => k === privacyOf(st))![1];
