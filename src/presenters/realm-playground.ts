import { templateToPrefix } from '../lib/playground-rules.js';

interface PlaygroundRow { id: number; name: string; pygments_language: string; url_template: string }

export type WireRealmPlayground =
  | { id: number; name: string; pygments_language: string; url_template: string }
  | { id: number; name: string; pygments_language: string; url_prefix: string };

/** Register's and the realm_playgrounds event's form: url_template from level 196, url_prefix before. */
export function presentRealmPlaygrounds(rows: readonly PlaygroundRow[], template: boolean): WireRealmPlayground[] {
  return rows.map((r) => (template
    ? { id: r.id, name: r.name, pygments_language: r.pygments_language, url_template: r.url_template }
    : { id: r.id, name: r.name, pygments_language: r.pygments_language, url_prefix: templateToPrefix(r.url_template) }));
}
