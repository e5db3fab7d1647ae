/**
 * The emoji the picker and `:name:` autocomplete offer. The full list (every emoji the server
 * takes, by the names it takes: src/emoji/catalog.ts) is a chunk of its own, fetched after
 * the first paint or when a picker opens first, so that it costs the first paint nothing;
 * the organization's custom emoji come from register. Until the chunk is here, the popular
 * ones stand in.
 */
import type { State } from './types';

export type EmojiItem = { name: string; aliases: string[]; code: string; type: 'unicode_emoji' | 'realm_emoji'; category: string; url?: string };

/** Zulip's popular emoji, first in its picker: +1, tada, smile, heart, working_on_it, octopus. */
export const POPULAR: EmojiItem[] = ([['+1', '1f44d'], ['tada', '1f389'], ['smile', '1f642'], ['heart', '2764'], ['working_on_it', '1f6e0'], ['octopus', '1f419']] as const)
  .map(([name, code]) => ({ name, aliases: [], code, type: 'unicode_emoji', category: 'Popular' }));

export const CUSTOM = 'Custom';

type Catalog = { categories: string[]; items: EmojiItem[] };
let loading: Promise<Catalog> | null = null;
let loaded: Catalog | null = null;

export function loadCatalog(): Promise<Catalog> {
  return (loading ??= import('virtual:emoji-catalog').then(({ default: c }) => {
    const items = c.emoji.map(([code, names, cat]): EmojiItem => ({ name: names[0]!, aliases: names.slice(1), code, type: 'unicode_emoji', category: c.categories[cat]! }));
    loaded = { categories: c.categories, items };
    return loaded;
  }));
}

/** The catalog if it has arrived (autocomplete cannot wait for it). */
export const catalogNow = (): Catalog | null => loaded;

/** The organization's custom emoji that are in use (register's realm_emoji). */
export function customEmoji(s: State): EmojiItem[] {
  return Object.values((s.reg.realm_emoji ?? {}) as Record<string, { id: string; name: string; source_url: string; deactivated: boolean }>)
    .filter((e) => !e.deactivated)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => ({ name: e.name, aliases: [], code: String(e.id), type: 'realm_emoji', category: CUSTOM, url: e.source_url }));
}

/**
 * Zulip's matching: a query matches a name that starts with it or has a word (between
 * underscores) that does; whole-name matches first, then prefixes, then word prefixes.
 * Aliases count, and the item is offered under the name that matched.
 */
export function searchEmoji(items: EmojiItem[], query: string, limit = Infinity): EmojiItem[] {
  const q = query.trim().toLowerCase().replace(/^:|:$/g, '').replace(/[\s-]+/g, '_');
  if (!q) return items.slice(0, limit);
  const ranked: Array<[number, number, EmojiItem]> = [];
  items.forEach((item, i) => {
    let best = 9;
    let as = item.name;
    for (const n of [item.name, ...item.aliases]) {
      const words = n.split('_');
      const rank = n === q ? 0 : n.startsWith(q) ? 1 : words.some((_, j) => j > 0 && words.slice(j).join('_').startsWith(q)) ? 2 : 9;
      if (rank < best) [best, as] = [rank, n];
    }
    if (best < 9) ranked.push([best, i, as === item.name ? item : { ...item, name: as }]);
  });
  return ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, limit).map((r) => r[2]);
}

export const glyph = (code: string) => {
  try {
    return String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16)));
  } catch {
    return '?';
  }
};
