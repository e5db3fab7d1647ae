import type { AnonymousGroup } from '../../lib/group-setting-value.js';
import type { AnonymousOf, MapId } from '../zulip-columns.js';
import { tableOf, type LoadState } from './state.js';

/** The loader's id maps as zulip-columns.ts asks for them. */
export const mapIdOf = (s: LoadState): MapId => (kind, id) => {
  const map = kind === 'user' ? s.users : kind === 'group' ? s.groups : s.streams;
  return map.has(id) ? map.get(id, kind) : undefined;
};

const cache = new WeakMap<LoadState, AnonymousOf>();

/**
 * Zulip 9 keeps a setting given as members and subgroups as a group without a name: a
 * `zerver_usergroup` row with no `zerver_namedusergroup` row. Such a group, in source ids.
 */
export function anonymousGroups(s: LoadState): AnonymousOf {
  let found = cache.get(s);
  if (found) return found;
  const named = new Set(tableOf(s, 'zerver_namedusergroup').map((g) => Number(g.usergroup_ptr ?? g.id)));
  const anonymous = new Map<number, AnonymousGroup>();
  if (named.size > 0) {
    for (const g of tableOf(s, 'zerver_usergroup')) {
      if (typeof g.id === 'number' && !named.has(g.id)) anonymous.set(g.id, { direct_members: [], direct_subgroups: [] });
    }
    for (const m of tableOf(s, 'zerver_usergroupmembership')) anonymous.get(Number(m.user_group))?.direct_members.push(Number(m.user_profile));
    for (const e of tableOf(s, 'zerver_groupgroupmembership')) anonymous.get(Number(e.supergroup))?.direct_subgroups.push(Number(e.subgroup));
  }
  found = (id) => anonymous.get(id);
  cache.set(s, found);
  return found;
}
