/**
 * What every importer reads: an organization in Zulip's export format (zerver/lib/export.py),
 * the one shape Parley loads. Zulip's own Slack and Mattermost converters write that format
 * and its importer loads it; Parley does the same, but in memory and streamed: a converter
 * produces the tables that fit in memory up front and the messages chunk by chunk, so that an
 * import of any size keeps a bounded footprint.
 *
 * Rows are Zulip's rows, keyed by Zulip's column names (`zerver_userprofile` rows have `id`,
 * `email`, `delivery_email`, `full_name`, `role`, `is_active`, `is_bot`, `bot_type`,
 * `bot_owner`, `timezone`, `date_joined` as Unix seconds, ...). Foreign keys are the source's
 * ids; the loader remaps every id. Anything unknown is ignored; anything malformed fails the
 * import with one clear line (ImportError).
 */
import type { Readable } from 'node:stream';

export type Row = Record<string, unknown>;

/**
 * realm.json: `zerver_realm` (one row), `zerver_userprofile`, `zerver_userprofile_mirrordummy`,
 * `zerver_userprofile_crossrealm`, `zerver_stream`, `zerver_recipient`, `zerver_subscription`,
 * `zerver_huddle`, `zerver_defaultstream`, `zerver_realmemoji`, `zerver_realmfilter`,
 * `zerver_customprofilefield`, `zerver_customprofilefieldvalue`, `zerver_usergroup`,
 * `zerver_namedusergroup`, `zerver_usergroupmembership`, `zerver_groupgroupmembership`,
 * `zerver_alertword`, `zerver_usertopic` (or the older `zerver_mutedtopic`), `zerver_muteduser`,
 * `zerver_userstatus`, `zerver_draft`, `zerver_realmuserdefault`, `zerver_service`,
 * `zerver_botstoragedata`, `zerver_scheduledmessage`, and, as Zulip writes them, `zerver_reaction`
 * and `zerver_attachment` (with `messages`: source message ids). Missing tables are empty.
 */
export type RealmTables = Record<string, Row[]>;

/** One messages-NNNNNN.json: messages in ascending source id, with their per-recipient rows. */
export interface MessageChunk {
  /** `id`, `sender`, `recipient`, `subject` (Zulip's column for the topic), `content`, `date_sent`, `last_edit_time`, `edit_history` (JSON text), `sending_client`... */
  zerver_message: Row[];
  /** `user_profile`, `message`, `flags_mask` (Zulip's bit numbering: read 1, starred 2, mentioned 8, ...). */
  zerver_usermessage: Row[];
  /** Streamed converters put the chunk's reactions and attachments here rather than in realm.json. */
  zerver_reaction?: Row[];
  zerver_attachment?: Row[];
}

/** One entry of uploads/, avatars/, emoji/ or realm_icons/ records.json. */
export interface FileRecord extends Row {
  /** The file's place inside its folder of the export (uploads: `<realm>/<xx>/<random>/<name>`). */
  path: string;
  /** Uploads: the path_id the attachment row names (`s3_path` in Zulip's S3 exports). */
  s3_path?: string;
  user_profile_id?: number;
  realm_id?: number;
  size?: number;
  content_type?: string | null;
  last_modified?: number;
  /** Emoji records: the emoji's file_name and its realm emoji id. */
  file_name?: string;
  name?: string;
}

export type FileKind = 'uploads' | 'avatars' | 'emoji' | 'realm_icons';

export interface ImportSource {
  /** Tables other than messages; read before the first chunk. */
  realm: RealmTables;
  /** Messages in ascending source id across chunks (the loader checks). */
  messages(): AsyncIterable<MessageChunk>;
  /**
   * Recipient rows left out for soft-deactivated people (`long_term_idle` users) are of
   * history they had read: a Slack import's, whose every row Zulip marks read. A Zulip
   * export's are unread, as they were on the server it came from.
   */
  idleHistoryRead?: boolean;
  /** For progress: the messages the source holds, when known without reading them all. */
  messageCount?: number;
  /**
   * records.json of each file folder; empty when the source has none. A streamed source's
   * uploads may hold only the chunk last given: the loader copies a chunk's files before it
   * asks for the next, and a source may then start a new list (a new array, not the old one
   * emptied), so that what it keeps does not grow with the export.
   */
  records: Record<FileKind, FileRecord[]>;
  /** A file's bytes. Rejects when it is missing or bigger than declared. */
  openFile(kind: FileKind, record: FileRecord): Promise<Readable>;
  /** Removes temporary files; called whatever happened. */
  close(): Promise<void>;
}

/** Every refusal of an import or export: one line for the operator, never a stack. */
export class ImportError extends Error {
  override name = 'ImportError';
}

/** Progress per phase, drawn as a bar by the CLI; tests pass nothing. */
export interface Progress {
  phase(label: string, total?: number): void;
  tick(n?: number): void;
  done(): void;
}

export const NO_PROGRESS: Progress = { phase() {}, tick() {}, done() {} };
