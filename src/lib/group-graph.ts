/** A subgroup edge: `subgroup_id` is a direct subgroup of `supergroup_id`. */
export type Edge = { supergroup_id: number; subgroup_id: number };

/**
 * Zulip's get_recursive_subgroups_for_groups: the groups themselves and every group below
 * them. The edges are few (one realm's), so they are walked in memory rather than with a
 * recursive query; a visited set keeps the walk finite whatever the data.
 */
export function recursiveSubgroups(edges: readonly Edge[], groupIds: Iterable<number>): Set<number> {
  const children = new Map<number, number[]>();
  for (const e of edges) {
    const list = children.get(e.supergroup_id);
    if (list) list.push(e.subgroup_id);
    else children.set(e.supergroup_id, [e.subgroup_id]);
  }
  const seen = new Set<number>();
  const todo = [...groupIds];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    todo.push(...(children.get(id) ?? []));
  }
  return seen;
}

