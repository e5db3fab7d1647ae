import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { badRequest } from '../errors.js';

/**
 * Zulip's one-time notices (zerver/lib/onboarding_steps.py ONE_TIME_NOTICES of 9.0, and the
 * names later releases added, which newer clients may mark). Parley's web app shows none of
 * them, so register's onboarding_steps is always empty, as Zulip's with the tutorial off.
 */
export const ONBOARDING_STEP_NAMES: ReadonlySet<string> = new Set([
  'visibility_policy_banner', 'intro_inbox_view_modal', 'intro_recent_view_modal', 'first_stream_created_banner',
  'jump_to_conversation_banner', 'non_interleaved_view_messages_fading', 'interleaved_view_messages_fading',
  'intro_resolve_topic', 'navigation_tour_video', 'narrow_to_dm_with_welcome_bot_new_user',
]);

/** POST /users/me/onboarding_steps (Zulip's mark_onboarding_step_as_read): the user's queues hear the steps left, none. */
export function doMarkOnboardingStepRead(tx: Tx, user: UserRow, step: string): void {
  if (!ONBOARDING_STEP_NAMES.has(step)) throw badRequest(`Unknown onboarding_step: ${step}`);
  tx.notify({ type: 'onboarding_steps', onboarding_steps: [] }, [user.id], user.realm_id);
}
