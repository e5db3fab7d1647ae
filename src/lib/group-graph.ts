/** A subgroup edge: `subgroup_id` is a direct subgroup of `supergroup_id`. */
export type Edge = { supergroup_id: number; subgroup_id: number };

/** The groups reachable from `start` along `next`, the start included; a visited set keeps the walk finite whatever the data. */
function closure(next: ReadonlyMap<number, number[]>, start: Iterable<number>): Set<number> {
  const seen = new Set<number>();
  const todo = [...start];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    todo.push(...(next.get(id) ?? []));
  }
  return seen;
}

function adjacency(edges: readonly Edge[], from: keyof Edge, to: keyof Edge): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const e of edges) {
    const list = out.get(e[from]);
    if (list) list.push(e[to]);
    else out.set(e[from], [e[to]]);
  }
  return out;
}

/**
 * Zulip's get_recursive_subgroups_for_groups: the groups themselves and every group below
 * them. The edges are few (one realm's), so they are walked in memory rather than with a
 * recursive query.
 */
export function recursiveSubgroups(edges: readonly Edge[], groupIds: Iterable<number>): Set<number> {
  return closure(adjacency(edges, 'supergroup_id', 'subgroup_id'), groupIds);
}

/** The groups themselves and every group above them: the groups a member of them is a member of. */
export function recursiveSupergroups(edges: readonly Edge[], groupIds: Iterable<number>): Set<number> {
  return closure(adjacency(edges, 'subgroup_id', 'supergroup_id'), groupIds);
}
