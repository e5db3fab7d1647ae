import type { Selectable, Kysely, Transaction } from 'kysely';
import type {
  DB, RealmTable, UserTable, StreamTable, SubscriptionTable, MessageTable, UserStatusTable, UserGroupTable, CustomProfileFieldTable, AttachmentTable,
  RealmEmojiTable, BotServiceTable, SessionTable, InviteTable,
} from './schema.js';

export type RealmRow = Selectable<RealmTable>;
export type UserRow = Selectable<UserTable>;
export type StreamRow = Selectable<StreamTable>;
export type SubscriptionRow = Selectable<SubscriptionTable>;
export type MessageRow = Selectable<MessageTable>;
export type UserStatusRow = Selectable<UserStatusTable>;
export type UserGroupRow = Selectable<UserGroupTable>;
export type ProfileFieldRow = Selectable<CustomProfileFieldTable>;
export type AttachmentRow = Selectable<AttachmentTable>;
export type RealmEmojiRow = Selectable<RealmEmojiTable>;
export type BotServiceRow = Selectable<BotServiceTable>;
export type SessionRow = Selectable<SessionTable>;
export type InviteRow = Selectable<InviteTable>;

/** Repos take either the root handle or a transaction. */
export type Q = Kysely<DB> | Transaction<DB>;
