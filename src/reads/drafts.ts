import type { Q } from '../store/rows.js';
import { drafts } from '../store/repos/drafts.js';
import { presentDraft, type WireDraft } from '../presenters/draft.js';

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: more are only to be had from GET /drafts. */
export const MAX_DRAFTS_IN_REGISTER = 1000;

/** GET /drafts: every draft of the user, least recently edited first, and how many. */
export async function draftsOf(q: Q, userId: number): Promise<{ count: number; drafts: WireDraft[] }> {
  const rows = await drafts.listOfUser(q, userId, 'asc');
  return { count: rows.length, drafts: rows.map(presentDraft) };
}

/** register's `drafts`: the most recently edited first, at most MAX_DRAFTS_IN_REGISTER. */
export async function registerDrafts(q: Q, userId: number): Promise<WireDraft[]> {
  return (await drafts.listOfUser(q, userId, 'desc', MAX_DRAFTS_IN_REGISTER)).map(presentDraft);
}
