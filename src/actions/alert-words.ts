import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { alertWords } from '../store/repos/alert-words.js';


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
  const existing = new Set((await alertWords.listOfUser(tx.db, user.id)).map((w) => w.toLowerCase()));
  for (const raw of words) {
    const w = raw.trim();
    if (w === '' || existing.has(w.toLowerCase())) continue;
    existing.add(w.toLowerCase());
    await alertWords.insert(tx.db, { user_id: user.id, realm_id: user.realm_id, word: w });
  }
  const now = await alertWords.listOfUser(tx.db, user.id);
  notifyAlertWords(tx, user, now);
  return now;
}

export async function doRemoveAlertWords(tx: Tx, user: UserRow, words: string[]): Promise<string[]> {
  const drop = new Set(words.map((w) => w.trim().toLowerCase()));
  const rows = await alertWords.listRowsOfUser(tx.db, user.id);
  await alertWords.deleteByIds(tx.db, rows.filter((r) => drop.has(r.word.toLowerCase())).map((r) => r.id));
  const now = await alertWords.listOfUser(tx.db, user.id);
  notifyAlertWords(tx, user, now);
  return now;
}
