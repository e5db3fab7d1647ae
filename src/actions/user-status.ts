import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact } from './transaction.js';
import { doSetUserSetting } from './settings-update.js';
import { AWAY_IS_PRESENCE_LEVEL } from '../lib/user-settings.js';
import type { UserRow } from '../store/rows.js';
import type { UserStatusEvent } from '../events/types.js';
import { userStatuses, type UserStatusChange } from '../store/repos/user-status.js';
import { users } from '../store/repos/users.js';
import { checkEmojiRequest, emojiDataForName, normalizeReactionType } from '../emoji/reaction.js';
import { customEmojiOf } from './reactions.js';
import { MAX_STATUS_TEXT_LENGTH } from '../lib/limits.js';
import { nowSeconds } from '../lib/time.js';
import { badRequest, statusEmojiNameRequired, statusNoNewValues, statusTextTooLong } from '../errors.js';

/**
 * POST /users/me/status, as Zulip 5's update_user_status_backend and do_update_user_status
 * (zerver/views/presence.py, zerver/lib/actions.py): only what is passed changes. Zulip 5
 * still keeps `away` as part of the status (Zulip 6 made it the presence_enabled setting).
 */
export interface UserStatusRequest {
  away?: boolean | undefined;
  statusText?: string | undefined;
  emojiName?: string | undefined;
  emojiCode?: string | undefined;
  reactionType?: string | undefined;
}

/** The checked update: every field that will be stored, and the event that tells of it. */
interface CheckedStatus { change: UserStatusChange; event: UserStatusEvent; presenceEnabled?: boolean }

/** Zulip's checks in its order; the status text is stripped after its length is checked, as Zulip 5 does. */
export async function checkUserStatus(ctx: AppContext, user: UserRow, req: UserStatusRequest): Promise<CheckedStatus> {
  const { emojiName } = req;
  let { statusText, emojiCode, reactionType } = req;
  if (statusText !== undefined) {
    if ([...statusText].length > MAX_STATUS_TEXT_LENGTH) throw statusTextTooLong(MAX_STATUS_TEXT_LENGTH);
    // Parley's own refusal: PostgreSQL cannot store a NUL in text (Zulip would fail there too).
    if (statusText.includes('\u0000')) throw badRequest('status_text must not contain null bytes');
    statusText = statusText.trim();
  }
  if (req.away === undefined && statusText === undefined && emojiName === undefined) throw statusNoNewValues();
  if (emojiName === '') {
    // An empty name clears the emoji, whatever else was sent.
    emojiCode = '';
    reactionType = 'unicode_emoji';
  } else if (emojiName !== undefined) {
    const custom = await customEmojiOf(ctx.store.db, user.realm_id);
    // Simple clients name the emoji only; the code and namespace are today's for that name.
    if (emojiCode === undefined || reactionType === undefined) {
      const data = emojiDataForName(custom, emojiName);
      emojiCode ??= data.emojiCode;
      reactionType ??= data.reactionType;
    }
    reactionType = normalizeReactionType(reactionType);
    checkEmojiRequest(custom, emojiName, emojiCode, reactionType);
  } else if (emojiCode || reactionType) {
    throw statusEmojiNameRequired();
  }

  const change: UserStatusChange = {};
  const event: UserStatusEvent = { type: 'user_status', user_id: user.id };
  let presenceEnabled: boolean | undefined;
  if (req.away !== undefined) {
    // Level 148 (Zulip 6's do_update_user_status): `away` is a deprecated way to set
    // presence_enabled to its opposite; the status itself no longer holds it.
    if (ctx.config.featureLevel >= AWAY_IS_PRESENCE_LEVEL) presenceEnabled = !req.away;
    else change.away = req.away ? 1 : 0;
    event.away = req.away;
  }
  if (statusText !== undefined) change.status_text = event.status_text = statusText;
  if (emojiName !== undefined) {
    change.emoji_name = event.emoji_name = emojiName;
    change.emoji_code = event.emoji_code = emojiCode!;
    change.reaction_type = event.reaction_type = reactionType!;
  }
  return { change, event, ...(presenceEnabled !== undefined ? { presenceEnabled } : {}) };
}

/** Checks, then stores (one statement) and tells every active user of the organization. */
export async function updateUserStatus(ctx: AppContext, user: UserRow, req: UserStatusRequest): Promise<void> {
  const checked = await checkUserStatus(ctx, user, req);
  const audience = await users.listActiveIdsInRealm(ctx.store.db, user.realm_id);
  await transact(ctx, (tx) => doUpdateUserStatus(tx, user, checked, audience, ctx.config.featureLevel));
}

async function doUpdateUserStatus(tx: Tx, user: UserRow, { change, event, presenceEnabled }: CheckedStatus, audience: number[], featureLevel: number): Promise<void> {
  if (presenceEnabled !== undefined) await doSetUserSetting(tx, user.id, 'presence_enabled', presenceEnabled, featureLevel);
  await userStatuses.upsert(tx.db, user.id, user.realm_id, change, nowSeconds());
  tx.notify(event, audience, user.realm_id);
}
