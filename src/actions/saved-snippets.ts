import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { savedSnippets, type SavedSnippetRecord } from '../store/repos/saved-snippets.js';
import { presentSavedSnippet } from '../presenters/saved-snippet.js';
import { fitsIdColumn } from '../lib/ids.js';
import { nowSeconds } from '../lib/time.js';
import { ApiError } from '../errors.js';

/**
 * Saved snippets (Zulip's zerver/actions/saved_snippets.py, feature levels 297 and 368):
 * the owner's alone; every saved_snippets event goes to the owner's queues only, and
 * another user's snippet is answered exactly like a missing one.
 */
export const savedSnippetDoesNotExist = () => new ApiError('BAD_REQUEST', 'Saved snippet does not exist.', 404);

export async function doCreateSavedSnippet(tx: Tx, user: UserRow, title: string, content: string): Promise<number> {
  const row = { user_id: user.id, title, content, date_created: nowSeconds() };
  const id = await savedSnippets.insert(tx.db, row);
  tx.notify({ type: 'saved_snippets', op: 'add', saved_snippet: presentSavedSnippet({ ...row, id }) }, [user.id], user.realm_id);
  return id;
}

async function ownSnippet(tx: Tx, user: UserRow, id: number): Promise<SavedSnippetRecord> {
  const found = fitsIdColumn(id) ? await savedSnippets.findOfUser(tx.db, user.id, id) : undefined;
  if (!found) throw savedSnippetDoesNotExist();
  return found;
}

export async function doEditSavedSnippet(tx: Tx, user: UserRow, id: number, title: string | undefined, content: string | undefined): Promise<void> {
  const existing = await ownSnippet(tx, user, id);
  const fields = { title: title ?? existing.title, content: content ?? existing.content };
  await savedSnippets.update(tx.db, existing.id, fields);
  tx.notify({ type: 'saved_snippets', op: 'update', saved_snippet: presentSavedSnippet({ ...existing, ...fields }) }, [user.id], user.realm_id);
}

export async function doDeleteSavedSnippet(tx: Tx, user: UserRow, id: number): Promise<void> {
  const existing = await ownSnippet(tx, user, id);
  await savedSnippets.deleteById(tx.db, existing.id);
  tx.notify({ type: 'saved_snippets', op: 'remove', saved_snippet_id: existing.id }, [user.id], user.realm_id);
}
