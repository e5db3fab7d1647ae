import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { botStorage, type StorageEntry } from '../store/repos/bot-storage.js';
import { storageKeyMissing, storageLimitExceeded, storageNullBytes } from '../errors.js';

/** Python's len(): characters are code points, as Zulip counts the limit. */
export const charCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
};

/**
 * PUT /bot_storage (Zulip's set_bot_storage): keys already held are replaced, and the
 * whole store after the change must fit the limit, or nothing is written. Any user may
 * keep storage, as in Zulip (the endpoint has no bot check); it is the caller's own.
 */
export async function doSetBotStorage(tx: Tx, user: UserRow, entries: StorageEntry[], limit: number): Promise<void> {
  if (entries.some((e) => e.key.includes('\u0000') || e.value.includes('\u0000'))) throw storageNullBytes();
  // A key given twice counts once, with its last value (a dict has each key once).
  const wanted = new Map(entries.map((e) => [e.key, e.value]));
  const held = new Map((await botStorage.listByKeys(tx.db, user.id, [...wanted.keys()])).map((e) => [e.key, e.value]));
  let difference = 0;
  for (const [key, value] of wanted) {
    const old = held.get(key);
    difference += charCount(key) + charCount(value) - (old === undefined ? 0 : charCount(key) + charCount(old));
  }
  const size = (await botStorage.sizeOfUser(tx.db, user.id)) + difference;
  if (size > limit) throw storageLimitExceeded(size - limit, limit);
  for (const [key, value] of wanted) {
    if (held.has(key)) await botStorage.updateValue(tx.db, user.id, { key, value });
    else await botStorage.insert(tx.db, user.id, { key, value });
  }
}

/** DELETE /bot_storage: the keys named (all of them when none are), each of which must be held. */
export async function doRemoveBotStorage(tx: Tx, user: UserRow, keys: string[] | undefined): Promise<void> {
  const named = keys && keys.length ? keys : (await botStorage.listByUser(tx.db, user.id)).map((e) => e.key);
  const clean = named.filter((k) => !k.includes('\u0000'));
  const found = await botStorage.listByKeys(tx.db, user.id, [...new Set(clean)]);
  // As Zulip: fewer rows than names (a missing key, or one named twice) removes nothing.
  if (found.length < named.length) throw storageKeyMissing();
  await botStorage.deleteByKeys(tx.db, user.id, named);
}
