import type { Q, UserRow } from '../store/rows.js';
import { botStorage } from '../store/repos/bot-storage.js';
import { storageKeyMissing } from '../errors.js';

/** GET /bot_storage (Zulip's get_storage): the keys asked for, or every key when none are. */
export async function botStorageOf(q: Q, user: UserRow, keys: string[] | undefined): Promise<Record<string, string>> {
  const rows = keys && keys.length
    ? await botStorage.listByKeys(q, user.id, [...new Set(keys.filter((k) => !k.includes('\u0000')))])
    : await botStorage.listByUser(q, user.id);
  const held = new Map(rows.map((e) => [e.key, e.value]));
  const out: Record<string, string> = Object.create(null);
  for (const key of keys && keys.length ? keys : [...held.keys()]) {
    const value = held.get(key);
    if (value === undefined) throw storageKeyMissing();
    out[key] = value;
  }
  return { ...out };
}
