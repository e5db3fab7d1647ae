import type { Tx } from '../store/tx.js';
import type { Q, UserRow } from '../store/rows.js';
import { membershipChanged } from '../store/versions.js';

export const MAX_ALERT_WORD_LENGTH = 100;

export async function listAlertWords(q: Q, userId: number): Promise<string[]> {
  return (await q.selectFrom('alert_word').select('word').where('user_id', '=', userId).orderBy('id').execute()).map((r) => r.word);
}

/** Every alert word in the realm, by user. */
export async function alertWordsOfRealm(q: Q, realmId: number): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  const rows = await q.selectFrom('alert_word').select(['user_id', 'word']).where('realm_id', '=', realmId).orderBy('id').execute();
  for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.word]);
  return out;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Zulip matches alert words case-insensitively, as whole words (not inside other words). */
export function matchesAlertWord(content: string, words: string[] | undefined): boolean {
  if (!words || words.length === 0) return false;
  const lower = content.toLowerCase();
  return words.some((w) => new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegex(w.toLowerCase())}($|[^\\p{L}\\p{N}_])`, 'u').test(lower));
}

function notifyAlertWords(tx: Tx, user: UserRow, words: string[]): void {
  tx.notify({ type: 'alert_words', alert_words: words }, [user.id], user.realm_id);
}

export async function doAddAlertWords(tx: Tx, user: UserRow, words: string[]): Promise<string[]> {
  const existing = new Set((await listAlertWords(tx.db, user.id)).map((w) => w.toLowerCase()));
  for (const raw of words) {
    const w = raw.trim();
    if (w === '' || existing.has(w.toLowerCase())) continue;
    existing.add(w.toLowerCase());
    membershipChanged(tx.db);
    await tx.db.insertInto('alert_word').values({ user_id: user.id, realm_id: user.realm_id, word: w }).execute();
  }
  const now = await listAlertWords(tx.db, user.id);
  notifyAlertWords(tx, user, now);
  return now;
}

export async function doRemoveAlertWords(tx: Tx, user: UserRow, words: string[]): Promise<string[]> {
  const drop = new Set(words.map((w) => w.trim().toLowerCase()));
  const rows = await tx.db.selectFrom('alert_word').select(['id', 'word']).where('user_id', '=', user.id).execute();
  const ids = rows.filter((r) => drop.has(r.word.toLowerCase())).map((r) => r.id);
  if (ids.length > 0) membershipChanged(tx.db);
  if (ids.length > 0) await tx.db.deleteFrom('alert_word').where('id', 'in', ids).execute();
  const now = await listAlertWords(tx.db, user.id);
  notifyAlertWords(tx, user, now);
  return now;
}
