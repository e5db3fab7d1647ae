/** Compose autocomplete: @mentions, :emoji:, #**stream** at the caret. */
import { catalogNow, customEmoji, glyph, loadCatalog, POPULAR, searchEmoji } from './emoji';
import type { State } from './types';

export type Suggestion = { label: string; insert: string };
export type Completion = { start: number; end: number; items: Suggestion[] };

const LIMIT = 8;

export function complete(text: string, caret: number, s: State): Completion | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)([@:#])(\**)([^\s@:#*]*(?: [^\s@:#*]+)?)$/.exec(before);
  if (!m) return null;
  const sigil = m[2]!;
  const query = m[4]!.toLowerCase();
  const start = caret - m[2]!.length - m[3]!.length - m[4]!.length;
  let items: Suggestion[];
  if (sigil === '@') {
    items = [...s.usersById.values()]
      .filter((u) => u.is_active !== false && (u.full_name.toLowerCase().includes(query) || u.email.toLowerCase().startsWith(query)))
      .slice(0, LIMIT)
      .map((u) => ({ label: `${u.full_name} (${u.email})`, insert: `@**${u.full_name}** ` }));
  } else if (sigil === ':') {
    if (query.length < 1) return null;
    // Every emoji once the catalog is here (it is fetched after the first paint); the popular ones until then.
    const known = catalogNow()?.items ?? (void loadCatalog(), POPULAR);
    items = searchEmoji([...customEmoji(s), ...known], query, LIMIT)
      .map((e) => ({ label: `${e.type === 'unicode_emoji' ? glyph(e.code) : ''} :${e.name}:`, insert: `:${e.name}: ` }));
  } else {
    items = ((s.reg.subscriptions ?? []) as Array<{ name: string }>)
      .filter((st) => st.name.toLowerCase().includes(query))
      .slice(0, LIMIT)
      .map((st) => ({ label: `#${st.name}`, insert: `#**${st.name}** ` }));
  }
  return items.length ? { start, end: caret, items } : null;
}
