import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

export type {
  RealmRow, UserRow, StreamRow, SubscriptionRow, MessageRow, UserStatusRow, UserGroupRow, ProfileFieldRow, AttachmentRow, TusUploadRow, RealmEmojiRow, BotServiceRow, SessionRow, InviteRow, PushDeviceRow,
} from './schema.js';

/** Repos take either the root handle or a transaction. */
export type Q = Kysely<DB> | Transaction<DB>;
