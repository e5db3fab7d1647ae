import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { linkifiers } from '../store/repos/linkifiers.js';
import { users } from '../store/repos/users.js';
import { checkLinkifier, firstError } from '../lib/linkifier-rules.js';
import { linkifierInvalid, linkifierNotFound } from '../errors.js';

/**
 * The organization's linkifiers (Zulip's do_add_linkifier, do_update_linkifier,
 * do_remove_linkifier): administrators only (the handler checks); each change tells
 * every active user the whole new list, in both the current and the legacy form.
 */

/** Zulip's full_clean: the fields, the pattern against the format, then (realm, pattern) unique. */
async function validate(tx: Tx, realm: RealmRow, pattern: string, urlFormat: string, selfId?: number): Promise<void> {
  const errors = checkLinkifier(pattern, urlFormat);
  if (!errors.pattern) {
    const same = await linkifiers.findByPattern(tx.db, realm.id, pattern);
    if (same && same.id !== selfId) (errors.__all__ ??= []).push('Realm filter with this Realm and Pattern already exists.');
  }
  const first = firstError(errors);
  if (first !== undefined) throw linkifierInvalid(first, errors);
}

async function notifyLinkifiers(tx: Tx, realm: RealmRow): Promise<void> {
  const list = (await linkifiers.listByRealm(tx.db, realm.id)).map((r) => ({ pattern: r.pattern, url_format: r.url_format_string, id: r.id }));
  const audience = await users.listActiveIdsInRealm(tx.db, realm.id);
  tx.notify({ type: 'realm_linkifiers', realm_linkifiers: list }, audience, realm.id);
  // Older clients listen for this one, with [pattern, url_format, id] triples.
  tx.notify({ type: 'realm_filters', realm_filters: list.map((l) => [l.pattern, l.url_format, l.id]) }, audience, realm.id);
}

export async function doAddLinkifier(tx: Tx, realm: RealmRow, rawPattern: string, rawUrlFormat: string): Promise<number> {
  const pattern = rawPattern.trim();
  const urlFormat = rawUrlFormat.trim();
  await validate(tx, realm, pattern, urlFormat);
  const id = await linkifiers.insert(tx.db, { realm_id: realm.id, pattern, url_format_string: urlFormat });
  await notifyLinkifiers(tx, realm);
  return id;
}

export async function doUpdateLinkifier(tx: Tx, realm: RealmRow, id: number, rawPattern: string, rawUrlFormat: string): Promise<void> {
  if (!(await linkifiers.findById(tx.db, realm.id, id))) throw linkifierNotFound();
  const pattern = rawPattern.trim();
  const urlFormat = rawUrlFormat.trim();
  await validate(tx, realm, pattern, urlFormat, id);
  await linkifiers.update(tx.db, id, { pattern, url_format_string: urlFormat });
  await notifyLinkifiers(tx, realm);
}

export async function doRemoveLinkifier(tx: Tx, realm: RealmRow, id: number): Promise<void> {
  if (!(await linkifiers.findById(tx.db, realm.id, id))) throw linkifierNotFound();
  await linkifiers.delete(tx.db, id);
  await notifyLinkifiers(tx, realm);
}
