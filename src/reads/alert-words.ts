import type { Q } from '../store/rows.js';
import { alertWords } from '../store/repos/alert-words.js';
import { cachedRead } from '../cache/index.js';

export const alertWordsOf = (q: Q, userId: number): Promise<string[]> => alertWords.listOfUser(q, userId);

/** Every alert word of the realm by user, as each send needs them (cached; shared, not to be changed). */
export const realmAlertWords = (q: Q, realmId: number): Promise<ReadonlyMap<number, string[]>> =>
  cachedRead(q, (c) => c.alertWords, realmId, () => alertWords.mapOfRealm(q, realmId));
