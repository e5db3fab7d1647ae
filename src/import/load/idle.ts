/**
 * People the export marks soft-deactivated (Zulip's long_term_idle): it holds their
 * recipient rows only up to their last_active_message_id, and past it only the rows that
 * flag something (mentions, private messages). They stay idle here, their mark moved to
 * what that message became, so that a catch-up (the daily one, or when they come back)
 * makes the rest. Bots are never idle in Parley (actions/soft-deactivation.ts).
 */
import type { Tx } from '../../actions/transaction.js';
import { softDeactivation } from '../../store/repos/soft-deactivation.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';

export async function loadIdlePeople(tx: Tx, s: LoadState): Promise<number> {
  const first = s.messages.first;
  const readThrough = s.source.idleHistoryRead === true && first !== undefined ? s.messages.floor(Number.MAX_SAFE_INTEGER)! : null;
  let idle = 0;
  for (const row of tableOf(s, 'zerver_userprofile')) {
    if (!field.bool(row, 'long_term_idle') || field.bool(row, 'is_bot') || !s.users.has(row.id)) continue;
    const mark = typeof row.last_active_message_id === 'number' ? s.messages.floor(row.last_active_message_id) : undefined;
    // A mark before every imported message: none of the import's rows is complete for them.
    // With no message imported at all there is nothing to catch up from this import.
    const lastActive = mark ?? (first !== undefined ? first - 1 : await softDeactivation.newestMessageId(tx.db));
    await softDeactivation.markImportedIdle(tx.db, s.users.get(row.id, 'an idle user'), lastActive, readThrough);
    idle++;
  }
  return idle;
}
