import type { Tx } from './transaction.js';
import type { RealmRow } from '../store/rows.js';
import { realmPlaygrounds } from '../store/repos/realm-playgrounds.js';
import { users } from '../store/repos/users.js';
import { presentRealmPlaygrounds } from '../presenters/realm-playground.js';
import { checkPlayground, checkPygmentsLanguageParam } from '../lib/playground-rules.js';
import { badRequest, invalidPlayground, playgroundInvalid } from '../errors.js';

/**
 * The organization's code playgrounds (Zulip's do_add_realm_playground and
 * do_remove_realm_playground): administrators only (the route checks); each change tells
 * every active user the whole new list (realm_playgrounds, stored as templates; the event
 * is presented for the server's level: url_template from 196, url_prefix before).
 */

export interface PlaygroundInput {
  name: string;
  pygmentsLanguage: string;
  /** Level 196's template, or a level-122 client's prefix already made one (prefixToTemplate). */
  urlTemplate: string;
  /** The server's level is 196 or later: the model's stricter language check. */
  templateLevel: boolean;
}

/** The server's level is one for every queue: the list is presented for it once. */
async function notifyPlaygrounds(tx: Tx, realm: RealmRow, templateLevel: boolean): Promise<void> {
  const list = presentRealmPlaygrounds(await realmPlaygrounds.listByRealm(tx.db, realm.id), templateLevel);
  tx.notify({ type: 'realm_playgrounds', realm_playgrounds: list }, await users.listActiveIdsInRealm(tx.db, realm.id), realm.id);
}

export async function doAddRealmPlayground(tx: Tx, realm: RealmRow, input: PlaygroundInput): Promise<number> {
  const paramError = checkPygmentsLanguageParam(input.pygmentsLanguage);
  if (paramError !== undefined) throw badRequest(paramError);
  const name = input.name.trim();
  const language = input.pygmentsLanguage.trim();
  const template = input.urlTemplate.trim();
  const errors = checkPlayground(name, language, template, input.templateLevel);
  if (!errors.name && !errors.pygments_language && await realmPlaygrounds.findByLanguageAndName(tx.db, realm.id, language, name)) {
    (errors.__all__ ??= []).push('Realm playground with this Realm, Pygments language and Name already exists.');
  }
  const first = Object.values(errors).flat()[0];
  if (first !== undefined) throw playgroundInvalid(first, errors);
  const id = await realmPlaygrounds.insert(tx.db, { realm_id: realm.id, name, pygments_language: language, url_template: template });
  await notifyPlaygrounds(tx, realm, input.templateLevel);
  return id;
}

export async function doRemoveRealmPlayground(tx: Tx, realm: RealmRow, id: number, templateLevel: boolean): Promise<void> {
  if (!(await realmPlaygrounds.findById(tx.db, realm.id, id))) throw invalidPlayground();
  await realmPlaygrounds.delete(tx.db, id);
  await notifyPlaygrounds(tx, realm, templateLevel);
}
