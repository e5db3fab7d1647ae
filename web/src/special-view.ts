/**
 * The views that are not a message list (Zulip's Inbox, Recent conversations and Drafts): shown
 * in the middle in place of the feed, each at its own address (#inbox, #recent, #drafts), left
 * by showing any narrow.
 */
import { store } from './store';

export type SpecialView = 'inbox' | 'recent' | 'drafts';
export const SPECIAL_VIEWS: readonly SpecialView[] = ['inbox', 'recent', 'drafts'];

export const special = { view: null as SpecialView | null };

export function openView(view: SpecialView, opts: { pushHash?: boolean } = {}): void {
  special.view = view;
  if (opts.pushHash !== false && location.hash !== `#${view}`) history.pushState(null, '', `#${view}`);
  store.changed();
}

/** The view an address names, if it names one. */
export function viewOfHash(hash: string): SpecialView | null {
  const name = hash.replace(/^#/, '');
  return (SPECIAL_VIEWS as readonly string[]).includes(name) ? (name as SpecialView) : null;
}
