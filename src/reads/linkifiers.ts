import type { Q } from '../store/rows.js';
import { linkifiers as rows } from '../store/repos/linkifiers.js';
import { cachedRead, type CachedLinkifier } from '../cache/index.js';
import { compileLinkifiers, topicLinksOf, type TopicLink } from '../markdown/linkifiers.js';
import { webLinks } from '../markdown/index.js';
export { presentLinkifiers } from '../presenters/linkifier.js';

/**
 * The organization's linkifiers as GET /realm/linkifiers and register present them, in the
 * order they apply. One array per change (cached): renders compile it once.
 */
export const realmLinkifiers = (q: Q, realmId: number): Promise<readonly CachedLinkifier[]> => cachedRead(q, (c) => c.linkifiers, realmId, async () =>
  (await rows.listByRealm(q, realmId)).map((r) => ({ pattern: r.pattern, url_format: r.url_format_string, url_template: r.url_template, id: r.id })));

/** The legacy realm_filters form (clients before feature level 54): [pattern, url_format, id] triples. */
export const legacyRealmFilters = (list: readonly CachedLinkifier[]): Array<[string, string, number]> =>
  list.map((l) => [l.pattern, l.url_format, l.id]);

/** A function giving each topic's topic_links under the organization's current linkifiers. */
export async function topicLinker(q: Q, realmId: number): Promise<(topic: string) => TopicLink[]> {
  const compiled = compileLinkifiers(await realmLinkifiers(q, realmId));
  return (topic) => (topic === '' ? [] : topicLinksOf(topic, compiled, webLinks));
}
