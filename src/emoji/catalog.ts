import fs from 'node:fs';
import { createRequire } from 'node:module';
import { emojiNames, nameForCode } from './index.js';

/**
 * The emoji picker's list, built from the same data the server validates reactions with
 * (so every name the picker offers is one the server takes): per code its names, canonical
 * first, in emoji-datasource's order, grouped in Zulip's picker categories (Zulip merges
 * "Smileys & Emotion" and "People & Body"). The web app's build turns this into a chunk
 * fetched when a picker first opens (web/vite.config.ts).
 */
export const CATEGORIES = ['Smileys & People', 'Animals & Nature', 'Food & Drink', 'Activity', 'Travel & Places', 'Objects', 'Symbols', 'Flags'] as const;

const CATEGORY_OF: Record<string, number> = {
  'Smileys & Emotion': 0, 'People & Body': 0, 'Animals & Nature': 1, 'Food & Drink': 2, Activities: 3,
  'Travel & Places': 4, Objects: 5, Symbols: 6, Flags: 7,
};

/** [code, names (canonical first), category index into CATEGORIES]. */
export type CatalogEntry = [code: string, names: string[], category: number];

interface DatasourceEntry { unified: string; non_qualified: string | null; category: string; sort_order: number }

export function emojiCatalog(): { categories: readonly string[]; emoji: CatalogEntry[] } {
  const require = createRequire(import.meta.url);
  const entries = JSON.parse(fs.readFileSync(require.resolve('emoji-datasource/emoji.json'), 'utf8')) as DatasourceEntry[];
  const namesOf = new Map<string, string[]>();
  for (const [name, code] of emojiNames()) namesOf.set(code, [...(namesOf.get(code) ?? []), name]);
  const out: Array<CatalogEntry & { order: number }> = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const category = CATEGORY_OF[e.category];
    const code = (e.non_qualified ?? e.unified).toLowerCase();
    const names = namesOf.get(code);
    if (category === undefined || !names || seen.has(code)) continue;
    seen.add(code);
    const canonical = nameForCode(code) ?? names[0]!;
    const entry = [code, [canonical, ...names.filter((n) => n !== canonical)], category] as CatalogEntry & { order: number };
    entry.order = category * 100_000 + e.sort_order;
    out.push(entry);
  }
  out.sort((a, b) => a.order - b.order);
  return { categories: CATEGORIES, emoji: out.map(([code, names, category]) => [code, names, category]) };
}
