import type { Q } from '../store/rows.js';
import { savedSnippets } from '../store/repos/saved-snippets.js';
import { presentSavedSnippet, type WireSavedSnippet } from '../presenters/saved-snippet.js';

export async function savedSnippetsOf(q: Q, userId: number): Promise<WireSavedSnippet[]> {
  return (await savedSnippets.listOfUser(q, userId)).map(presentSavedSnippet);
}
