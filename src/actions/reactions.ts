import type { Tx } from './transaction.js';
import type { MessageRow, Q, StreamRow, UserRow } from '../store/rows.js';
import type { ReactionEvent } from '../events/types.js';
import { accessMessageToModify } from '../access/message.js';
import { reactions, type ReactionRow } from '../store/repos/reactions.js';
import { userMessages } from '../store/repos/user-messages.js';
import { messageActionAudience } from '../reads/message-audience.js';
import { checkEmojiRequest, emojiDataForName, normalizeReactionType, NO_CUSTOM_EMOJI, type CustomEmojiSet } from '../emoji/reaction.js';
import { badRequest, reactionDoesNotExist, reactionExists } from '../errors.js';

/**
 * Emoji reactions, as Zulip's check_add_reaction and remove_reaction
 * (zerver/actions/reactions.py, zerver/views/reactions.py), checks in their order.
 */
export interface ReactionRequest {
  emojiName?: string | undefined;
  emojiCode?: string | undefined;
  reactionType?: string | undefined;
}

/** The organization's custom emoji. None exist yet; the custom-emoji table will load them here. */
async function customEmojiOf(_q: Q, _realmId: number): Promise<CustomEmojiSet> {
  return NO_CUSTOM_EMOJI;
}

/** POST /messages/{id}/reactions. */
export async function doAddReaction(tx: Tx, user: UserRow, messageId: number, req: ReactionRequest & { emojiName: string }): Promise<void> {
  const { message, flags, stream } = await accessMessageToModify(tx.db, user, messageId);
  const custom = await customEmojiOf(tx.db, user.realm_id);
  let { emojiName, emojiCode, reactionType } = req;
  // Simple clients name the emoji only; the code and namespace are today's for that name.
  if (emojiCode === undefined || reactionType === undefined) {
    const data = emojiDataForName(custom, emojiName);
    emojiCode ??= data.emojiCode;
    reactionType ??= data.reactionType;
  }
  reactionType = normalizeReactionType(reactionType);
  if (await reactions.findOne(tx.db, message.id, user.id, emojiCode, reactionType)) throw reactionExists();
  // Someone's reaction with this emoji already: the new one is a vote for it and takes its
  // name unchecked (it may be a custom emoji deactivated since), so that one image never
  // shows under two names.
  const existing = await reactions.findByEmoji(tx.db, message.id, emojiCode, reactionType);
  if (existing) emojiName = existing.emoji_name;
  else checkEmojiRequest(custom, emojiName, emojiCode, reactionType);
  // A reader of a public stream who never received the message gets a row, so that later
  // changes to it reach them.
  if (flags === null) await userMessages.insertHistorical(tx.db, user.id, [message.id]);
  const row = { message_id: message.id, user_id: user.id, emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType };
  // A concurrent identical request may have won between the check above and here.
  if (!(await reactions.insert(tx.db, row))) throw reactionExists();
  await notifyReaction(tx, user, message, stream, row, 'add');
}

/**
 * DELETE /messages/{id}/reactions: the user's reaction named by its code and namespace
 * (what a full client sends, and the only way to reach one added under an older name
 * mapping), or by its name alone. The pair is not validated: a reaction that exists was
 * valid when added.
 */
export async function doRemoveReaction(tx: Tx, user: UserRow, messageId: number, req: ReactionRequest): Promise<void> {
  const { message, stream } = await accessMessageToModify(tx.db, user, messageId);
  let { emojiCode, reactionType } = req;
  if (emojiCode === undefined) {
    if (req.emojiName === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    const data = emojiDataForName(await customEmojiOf(tx.db, user.realm_id), req.emojiName);
    emojiCode = data.emojiCode;
    // Zulip assumes unicode_emoji here; the name's own namespace is what the client meant
    // (the two differ only for the extra and custom emoji, where Zulip finds nothing).
    reactionType ??= data.reactionType;
  }
  reactionType = normalizeReactionType(reactionType ?? 'unicode_emoji');
  const row = await reactions.findOne(tx.db, message.id, user.id, emojiCode, reactionType);
  if (!row || !(await reactions.deleteById(tx.db, row.id))) throw reactionDoesNotExist();
  await notifyReaction(tx, user, message, stream, row, 'remove');
}

/** Everyone who may read the message and likely holds it hears it, the reacting user's other clients too. */
async function notifyReaction(tx: Tx, user: UserRow, message: MessageRow, stream: StreamRow | undefined,
  r: Pick<ReactionRow, 'emoji_name' | 'emoji_code' | 'reaction_type'>, op: 'add' | 'remove'): Promise<void> {
  const audience = new Set(await messageActionAudience(tx.db, message, stream));
  audience.add(user.id);
  const event: ReactionEvent = {
    type: 'reaction', op, message_id: message.id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type,
    user_id: user.id, user: { user_id: user.id, email: user.email, full_name: user.full_name },
  };
  tx.notify(event, audience, user.realm_id);
}
