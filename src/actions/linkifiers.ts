import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { linkifiers } from '../store/repos/linkifiers.js';
import { users } from '../store/repos/users.js';
import { checkLinkifier, checkLinkifierTemplate, firstError } from '../lib/linkifier-rules.js';
import { templateToFormat } from '../lib/url-template.js';
import { badRequest, linkifierInvalid, linkifierNotFound } from '../errors.js';

/**
 * The organization's linkifiers (Zulip's do_add_linkifier, do_update_linkifier,
 * do_remove_linkifier, check_reorder_linkifiers): administrators only (the handler
 * checks); each change tells every active user the whole new list.
 */

/** What links a match: level 176's RFC 6570 template, or the URL format string of level 122's requests. */
export type LinkifierUrl = { template: string } | { format: string };

/** Zulip's full_clean: the fields, the pattern against the URL, then (realm, pattern) unique. */
async function validate(tx: Tx, realm: RealmRow, pattern: string, url: LinkifierUrl, selfId?: number): Promise<void> {
  const errors = 'template' in url ? checkLinkifierTemplate(pattern, url.template) : checkLinkifier(pattern, url.format);
  if (!errors.pattern) {
    const same = await linkifiers.findByPattern(tx.db, realm.id, pattern);
    if (same && same.id !== selfId) (errors.__all__ ??= []).push('Realm filter with this Realm and Pattern already exists.');
  }
  const first = firstError(errors);
  if (first !== undefined) throw linkifierInvalid(first, errors);
}

/**
 * One event with both forms of each linkifier: each queue is given the form its register
 * gave it (src/events/personalize.ts: url_template with the linkifier_url_template
 * capability; url_format, and the legacy realm_filters event, for level-122 queues).
 */
async function notifyLinkifiers(tx: Tx, realm: RealmRow): Promise<void> {
  const list = (await linkifiers.listByRealm(tx.db, realm.id)).map((r) => ({
    pattern: r.pattern, url_format: r.url_format_string, url_template: r.url_template, id: r.id,
  }));
  const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
  tx.notify({ type: 'realm_linkifiers', realm_linkifiers: list }, audience, realm.id);
  // Older clients listen for this one, with [pattern, url_format, id] triples.
  tx.notify({ type: 'realm_filters', realm_filters: list.map((l) => [l.pattern, l.url_format, l.id]) }, audience, realm.id);
}

/** The stored columns: a template is also kept as the format string a level-122 client reads. */
function trimmed(url: LinkifierUrl): { url_format_string: string; url_template: string | null; url: LinkifierUrl } {
  if ('template' in url) {
    const template = url.template.trim();
    return { url_format_string: templateToFormat(template), url_template: template, url: { template } };
  }
  const format = url.format.trim();
  return { url_format_string: format, url_template: null, url: { format } };
}

export async function doAddLinkifier(tx: Tx, realm: RealmRow, rawPattern: string, rawUrl: LinkifierUrl): Promise<number> {
  const pattern = rawPattern.trim();
  const { url, ...columns } = trimmed(rawUrl);
  await validate(tx, realm, pattern, url);
  const id = await linkifiers.insert(tx.db, { realm_id: realm.id, pattern, ...columns });
  await notifyLinkifiers(tx, realm);
  return id;
}

export async function doUpdateLinkifier(tx: Tx, realm: RealmRow, id: number, rawPattern: string, rawUrl: LinkifierUrl): Promise<void> {
  if (!(await linkifiers.findById(tx.db, realm.id, id))) throw linkifierNotFound();
  const pattern = rawPattern.trim();
  const { url, ...columns } = trimmed(rawUrl);
  await validate(tx, realm, pattern, url, id);
  await linkifiers.update(tx.db, id, { pattern, ...columns });
  await notifyLinkifiers(tx, realm);
}

export async function doRemoveLinkifier(tx: Tx, realm: RealmRow, id: number): Promise<void> {
  if (!(await linkifiers.findById(tx.db, realm.id, id))) throw linkifierNotFound();
  await linkifiers.delete(tx.db, id);
  await notifyLinkifiers(tx, realm);
}

/** Level 202's PATCH /realm/linkifiers (Zulip's check_reorder_linkifiers): every linkifier once, in the new order. */
export async function doReorderLinkifiers(tx: Tx, realm: RealmRow, orderedIds: number[]): Promise<void> {
  if (new Set(orderedIds).size < orderedIds.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
  const current = await linkifiers.listByRealm(tx.db, realm.id);
  const wanted = new Set(orderedIds);
  if (current.length !== wanted.size || current.some((l) => !wanted.has(l.id))) {
    throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  }
  if (current.length === 0) return;
  for (const [position, id] of orderedIds.entries()) await linkifiers.setPosition(tx.db, id, position);
  await notifyLinkifiers(tx, realm);
}
