import type { Tx } from '../../actions/transaction.js';
import { realmImport } from '../../store/repos/realm-import.js';
import type { Row } from '../source.js';
import type { LoadState } from './state.js';

export const REACTION_COLUMNS = ['message_id', 'user_id', 'emoji_name', 'emoji_code', 'reaction_type'] as const;
const UNICODE_CODE = /^[0-9a-f]{1,8}(-[0-9a-f]{1,8})*$/;
const NAME = /^[0-9a-z.\-_+]{1,100}$/;

/**
 * Reactions on messages already loaded; a custom emoji's code is its id, mapped like any.
 * One that names something the export lacks, or an emoji Parley could not show, is left out
 * rather than failing years of history over a reaction.
 */
export async function loadReactions(tx: Tx, s: LoadState, rows: Row[]): Promise<number> {
  const values = reactionValues(s, rows);
  await realmImport.insertFlat(tx.db, 'reaction', REACTION_COLUMNS, values);
  return values.length / REACTION_COLUMNS.length;
}

/** The rows loadReactions inserts, their values end to end in REACTION_COLUMNS' order. */
export function reactionValues(s: LoadState, rows: Row[]): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const messageId = s.messages.lookup(r.message);
    if (messageId === undefined || !s.users.has(r.user_profile) || typeof r.emoji_name !== 'string' || !NAME.test(r.emoji_name)) continue;
    const type = r.reaction_type ?? 'unicode_emoji';
    let code: string;
    if (type === 'realm_emoji') {
      const id = Number(r.emoji_code);
      if (!s.emoji.has(id)) continue;
      code = String(s.emoji.get(id, 'a reaction'));
    } else if ((type === 'unicode_emoji' || type === 'zulip_extra_emoji') && typeof r.emoji_code === 'string' && (type === 'zulip_extra_emoji' || UNICODE_CODE.test(r.emoji_code))) {
      code = r.emoji_code;
    } else {
      continue;
    }
    const userId = s.users.get(r.user_profile, 'a reaction');
    const key = `${messageId},${userId},${code},${type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(messageId, userId, r.emoji_name, code, type);
  }
  return out;
}
