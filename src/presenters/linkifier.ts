import type { WireLinkifier } from '../schemas/wire.js';
import { formatToTemplate } from '../lib/url-template.js';

/** A linkifier with both its forms: url_template null for one made with a URL format string. */
export interface StoredLinkifier { id: number; pattern: string; url_format: string; url_template: string | null }

/** GET /realm/linkifiers', register's and the events' objects: url_template from level 176 (a format string's own template for older ones), url_format before. */
export function presentLinkifiers(list: readonly StoredLinkifier[], withTemplate: boolean): WireLinkifier[] {
  return list.map((l) => (withTemplate ? { pattern: l.pattern, url_template: l.url_template ?? formatToTemplate(l.url_format), id: l.id } : { pattern: l.pattern, url_format: l.url_format, id: l.id }));
}
