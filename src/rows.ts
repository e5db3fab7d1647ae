/**
 * The row shapes every layer passes around (handlers, presenters, actions): types only,
 * so that the layers above the store name them without reaching into it.
 */
export type { RealmRow, UserRow, StreamRow, SubscriptionRow, MessageRow, UserStatusRow, UserGroupRow, ProfileFieldRow, BotServiceRow } from './store/rows.js';
export type { AttachmentRow, RealmEmojiRow, SessionRow, InviteRow } from './store/rows.js';
