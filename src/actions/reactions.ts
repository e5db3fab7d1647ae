import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import { transact, writeAlone } from './transaction.js';
import type { MessageRow, Q, StreamRow, UserRow } from '../store/rows.js';
import type { ReactionEvent } from '../events/types.js';
import { accessMessageToModify } from '../access/message.js';
import { AUTO_FOLLOW_LEVEL, doAutoFollowOnParticipation } from './auto-follow.js';
import { reactions, type ReactionRow } from '../store/repos/reactions.js';
import { realmEmoji } from '../store/repos/realm-emoji.js';
import { userMessages } from '../store/repos/user-messages.js';
import { messageActionAudience } from '../reads/message-audience.js';
import { checkEmojiRequest, emojiDataForName, isKnownEmojiCode, normalizeReactionType, NO_CUSTOM_EMOJI, type CustomEmojiSet, type ReactionType } from '../emoji/reaction.js';
import { badRequest, invalidMessage, reactionDoesNotExist, reactionExists } from '../errors.js';

/**
 * Emoji reactions, as Zulip's check_add_reaction and remove_reaction
 * (zerver/actions/reactions.py, zerver/views/reactions.py), checks in their order.
 *
 * Each is a check, made on the store outside any transaction, then the write alone, one
 * statement (with the historical row, two in a transaction): on SQLite every statement of
 * a transaction is a round trip to the writer thread, which serves one transaction at a
 * time, so reads inside it would cap every writer's throughput. What may change between the two is answered at the write:
 * the insert conflicts on the unique index (a concurrent identical reaction) or finds no
 * message (a concurrent deletion); the delete finds no row (a concurrent removal).
 */
export interface ReactionRequest {
  emojiName?: string | undefined;
  emojiCode?: string | undefined;
  reactionType?: string | undefined;
}

type ReactionFields = Pick<ReactionRow, 'emoji_name' | 'emoji_code' | 'reaction_type'>;

/** The organization's custom emoji (deactivated ones too: old reactions name them by id). */
export async function customEmojiOf(q: Q, realmId: number): Promise<CustomEmojiSet> {
  const rows = (await realmEmoji.listByRealm(q, realmId)).filter((e) => e.file_name !== null);
  if (rows.length === 0) return NO_CUSTOM_EMOJI;
  const byId = new Map(rows.map((e) => [String(e.id), { id: String(e.id), name: e.name, deactivated: e.deactivated === 1 }]));
  const activeByName = new Map([...byId.values()].filter((e) => !e.deactivated).map((e) => [e.name, e]));
  return { activeByName: (name) => activeByName.get(name), byId: (id) => byId.get(id) };
}

/** POST /messages/{id}/reactions. */
export async function addReaction(ctx: AppContext, user: UserRow, messageId: number, req: ReactionRequest & { emojiName: string }): Promise<void> {
  const q = ctx.store.db;
  const { message, flags, stream } = await accessMessageToModify(q, user, messageId, ctx.config.featureLevel);
  const custom = await customEmojiOf(q, user.realm_id);
  let { emojiName, emojiCode, reactionType } = req;
  // Simple clients name the emoji only; the code and namespace are today's for that name.
  if (emojiCode === undefined || reactionType === undefined) {
    const data = emojiDataForName(custom, emojiName);
    emojiCode ??= data.emojiCode;
    reactionType ??= data.reactionType;
  }
  reactionType = normalizeReactionType(reactionType);
  const same = await reactions.listByEmoji(q, message.id, emojiCode, reactionType);
  if (same.some((r) => r.user_id === user.id)) throw reactionExists(ctx.config.featureLevel);
  // Someone's reaction with this emoji already: the new one is a vote for it and takes its
  // name unchecked (it may be a custom emoji deactivated since), so that one image never
  // shows under two names.
  const existing = same[0];
  if (existing) emojiName = existing.emoji_name;
  else checkEmojiRequest(custom, emojiName, emojiCode, reactionType);
  const row = { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType };
  const audience = await reactionAudience(q, user, message, stream);
  // Without a historical row to add, the insert is the only write.
  const historical = flags === null;
  // Reacting is taking part in the topic (the automatic follow/unmute settings, level 214).
  const participates = stream !== undefined && stream !== null && ctx.config.featureLevel >= AUTO_FOLLOW_LEVEL;
  await (historical || participates ? transact : writeAlone)(ctx, async (tx) => {
    await doAddReaction(tx, user, message, historical, row, audience, ctx.config.featureLevel);
    if (participates) await doAutoFollowOnParticipation(tx, user, stream, message.topic, ctx.config.featureLevel);
  });
}

/**
 * Stores a checked reaction and tells `audience`. A reader of a public stream who never
 * received the message first gets a row (`historical`), so that later changes reach them.
 */
export async function doAddReaction(
  tx: Tx, user: UserRow, message: MessageRow, historical: boolean, row: ReactionFields, audience: Set<number>, featureLevel: number,
): Promise<void> {
  if (historical) await userMessages.insertHistorical(tx.db, user.id, [message.id]);
  if (!(await reactions.insertIfMessageExists(tx.db, { ...row, message_id: message.id, user_id: user.id }))) {
    throw (await reactions.findOne(tx.db, message.id, user.id, row.emoji_code, row.reaction_type)) ? reactionExists(featureLevel) : invalidMessage();
  }
  notifyReaction(tx, user, message.id, row, 'add', audience);
}

/**
 * DELETE /messages/{id}/reactions: the user's reaction named by its code and namespace
 * (what a full client sends, and the only way to reach one added under an older name
 * mapping), or by its name alone. The pair is not validated: a reaction that exists was
 * valid when added.
 */
export async function removeReaction(ctx: AppContext, user: UserRow, messageId: number, req: ReactionRequest): Promise<void> {
  const q = ctx.store.db;
  const { message, stream } = await accessMessageToModify(q, user, messageId, ctx.config.featureLevel);
  let { emojiCode, reactionType } = req;
  if (emojiCode === undefined) {
    if (req.emojiName === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    const data = emojiDataForName(await customEmojiOf(q, user.realm_id), req.emojiName);
    emojiCode = data.emojiCode;
    // Zulip assumes unicode_emoji here; the name's own namespace is what the client meant
    // (the two differ only for the extra and custom emoji, where Zulip finds nothing).
    reactionType ??= data.reactionType;
  }
  reactionType = normalizeReactionType(reactionType ?? 'unicode_emoji');
  const row = await reactions.findOne(q, message.id, user.id, emojiCode, reactionType);
  if (!row) {
    // The spec's answer for a code that names no emoji (Zulip's OpenAPI example); a known
    // emoji the user did not react with is Zulip's "doesn't exist".
    if (req.emojiCode !== undefined && !isKnownEmojiCode(await customEmojiOf(q, user.realm_id), emojiCode, reactionType)) throw invalidMessage();
    throw reactionDoesNotExist(ctx.config.featureLevel);
  }
  const audience = await reactionAudience(q, user, message, stream);
  await writeAlone(ctx, (tx) => doRemoveReaction(tx, user, row, audience, ctx.config.featureLevel));
}

/** Deletes a reaction found by removeReaction and tells `audience`. */
export async function doRemoveReaction(tx: Tx, user: UserRow, row: ReactionRow, audience: Set<number>, featureLevel: number): Promise<void> {
  if (!(await reactions.deleteById(tx.db, row.id))) throw reactionDoesNotExist(featureLevel);
  notifyReaction(tx, user, row.message_id, row, 'remove', audience);
}

/** Everyone who may read the message and likely holds it, and the reacting user's other clients. */
async function reactionAudience(q: Q, user: UserRow, message: MessageRow, stream: StreamRow | undefined): Promise<Set<number>> {
  const audience = new Set(await messageActionAudience(q, message, stream));
  audience.add(user.id);
  return audience;
}

function notifyReaction(tx: Tx, user: UserRow, messageId: number, r: ReactionFields, op: 'add' | 'remove', audience: Set<number>): void {
  const event: ReactionEvent = {
    // The column is text; only a checked reaction type is ever stored in it.
    type: 'reaction', op, message_id: messageId, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type as ReactionType,
    user_id: user.id,
  };
  // Level 328 removed the deprecated `user`; level 339 restored it to these events (not to messages).
  if (tx.featureLevel < 328 || tx.featureLevel >= 339) event.user = { user_id: user.id, email: user.email, full_name: user.full_name };
  tx.notify(event, audience, user.realm_id);
}
