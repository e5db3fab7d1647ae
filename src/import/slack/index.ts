/**
 * A Slack workspace export (an extracted, checked folder) as an ImportSource, following
 * Zulip's zerver/data_import/slack.py. Zulip's converter asks Slack's API for the people
 * list; this one takes users.json, makes up addresses in `emailDomain` for those without one,
 * and uses the API (with the token) only for custom emoji and for file and avatar bytes.
 */
import type { Readable } from 'node:stream';
import { ImportError, type FileKind, type FileRecord, type ImportSource, type MessageChunk, type RealmTables, type Row } from '../source.js';
import { convertChannels } from './channels.js';
import { importedText, indexDays, isIntegrationBotMessage, readDay, senderOf } from './days.js';
import { markIdlePeople, SenderActivity } from './idle.js';
import { fetchCustomEmoji, type CustomEmoji } from './emoji.js';
import { openOrigin, type FileOrigin } from './files.js';
import { obj, optStr, readObjects, type Obj } from './json.js';
import { convertMessages } from './messages.js';
import { convertUsers } from './users.js';

export interface SlackOptions {
  /** The domain of the addresses made up for bots and for people without an email. */
  emailDomain: string;
  /** Slack API token: for url_private files, avatars and the custom emoji list. */
  token?: string;
  /** Injected in tests. */
  fetch?: typeof globalThis.fetch;
  /** A file bigger than this is refused when opened. */
  maxFileBytes: number;
  /** Unix seconds stamped as join and creation times; the clock by default (tests pin it). */
  now?: number;
  /** Messages per chunk; 1000 (Zulip's) by default. */
  chunkSize?: number;
}

const REALM_ID = 1;
const CLIENTS = ['Internal', 'website', 'ZulipMobile', 'ZulipElectron', 'ZulipDataImport'];

/**
 * Integration bots post without a Slack user (subtype bot_message with a bot_id only), so
 * Zulip's converter makes a user for each from Slack's bots.info; the message's own
 * bot_profile carries the same name and icons. Reading every day here also counts the messages,
 * and who sent how many when (idle.ts).
 */
async function scanMessages(dir: string, folders: string[], activity: SenderActivity): Promise<{ bots: Obj[]; count: number }> {
  const bots = new Map<string, Obj>();
  let count = 0;
  for (const [day, dayFolders] of await indexDays(dir, folders)) {
    for (const { message, ts } of await readDay(dir, day, dayFolders)) {
      activity.note(senderOf(message), ts);
      if (importedText(message) !== undefined) count++;
      if (!isIntegrationBotMessage(message) || bots.has(message.bot_id as string)) continue;
      const botId = message.bot_id as string;
      const profile = obj(message, 'bot_profile');
      const name = optStr(profile, 'name') ?? optStr(message, 'username');
      const image = optStr(obj(profile, 'icons'), 'image_72') ?? optStr(obj(message, 'icons'), 'image_72');
      const label = name ?? `Deleted Slack Bot ${botId}`;
      bots.set(botId, {
        id: botId, name: label, real_name: label, deleted: name === undefined || profile?.deleted === true,
        is_integration_bot: true, profile: { bot_id: botId, first_name: label, ...(image ? { image_72: image } : {}) },
      });
    }
  }
  return { bots: [...bots.values()], count };
}

export async function openSlackSource(dir: string, opts: SlackOptions): Promise<ImportSource> {
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const users = (await readObjects(dir, 'users.json'))!;
  const channels = (await readObjects(dir, 'channels.json'))!;
  const groups = (await readObjects(dir, 'groups.json', true)) ?? [];
  const mpims = (await readObjects(dir, 'mpims.json', true)) ?? [];
  const dms = (await readObjects(dir, 'dms.json', true)) ?? [];

  const folders = [...channels, ...groups, ...mpims].map((c) => optStr(c, 'name')).concat(dms.map((d) => optStr(d, 'id')));
  const activity = new SenderActivity(now);
  const { bots, count } = await scanMessages(dir, folders.filter((f): f is string => f !== undefined && !/[/\\]|^\.\.?$/.test(f)), activity);

  const people = convertUsers([...users, ...bots], opts.emailDomain, now, REALM_ID);
  const idle = markIdlePeople(activity, people.people, people.zerver_userprofile);
  const conv = convertChannels({ channels, groups, mpims, dms }, people.people, REALM_ID);
  const emoji: CustomEmoji = opts.token ? await fetchCustomEmoji(fetchFn, opts.token, REALM_ID) : { rows: [], urls: new Map(), records: [] };

  const zerver_realm: Row = {
    id: REALM_ID, name: '', string_id: '', description: 'Organization imported from Slack!', date_created: now,
  };
  if (conv.announcements !== undefined) {
    zerver_realm.new_stream_announcements_stream = conv.announcements;
    zerver_realm.zulip_update_announcements_stream = conv.announcements;
  }
  const realm: RealmTables = {
    zerver_realm: [zerver_realm],
    zerver_client: CLIENTS.map((name, i) => ({ id: i + 1, name })),
    zerver_userprofile: people.zerver_userprofile,
    zerver_customprofilefield: people.zerver_customprofilefield,
    zerver_customprofilefieldvalue: people.zerver_customprofilefieldvalue,
    ...conv.tables,
    zerver_realmemoji: emoji.rows,
  };

  // Zulip's converter writes each avatar twice: the image and its original.
  const avatarUrls = new Map<string, string>();
  const avatarRecords: FileRecord[] = people.avatars.flatMap(({ userId, url }) => ['png', 'original'].map((ext) => {
    const path = `${REALM_ID}/${userId}.${ext}`;
    avatarUrls.set(path, url);
    return { path, s3_path: path, realm_id: REALM_ID, user_profile_id: userId, avatar_version: 1, content_type: 'image/png', last_modified: now };
  }));

  const origins = new Map<string, FileOrigin>();
  let attachmentId = 0;
  const records: ImportSource['records'] = { uploads: [], avatars: avatarRecords, emoji: emoji.records as FileRecord[], realm_icons: [] };
  const openOpts = { token: opts.token, fetch: fetchFn, maxFileBytes: opts.maxFileBytes };

  return {
    realm,
    records,
    messageCount: count,
    idleHistoryRead: true,
    async *messages(): AsyncIterable<MessageChunk> {
      // Uploads records are made with the messages that link them: a new pass makes them anew.
      records.uploads = [];
      origins.clear();
      attachmentId = 0;
      // Once the next chunk is asked for, the loader has copied the last one's files
      // (ImportSource.records): their records and origins, kept, grew with the export (a file
      // for every tenth message in the benchmark's), and the next chunk with files starts anew.
      let copied = false;
      const chunks = convertMessages({
        dir, realmId: REALM_ID, chunkSize: opts.chunkSize ?? 1000, conversations: conv.conversations, people: people.people,
        channelNames: conv.channelNames, personalRecipient: conv.personalRecipient, subscribers: conv.subscribers,
        emailOf: people.emailOf, idle, realmEmoji: new Map(emoji.rows.map((r) => [r.name as string, r.id as number])),
        files: { dir, realmId: REALM_ID, origins, nextAttachmentId: () => ++attachmentId },
        addUploads: (made) => {
          if (made.length === 0) return;
          if (copied) {
            // The new files' origins are already set (convertFiles): only the old ones go.
            for (const r of records.uploads) origins.delete(r.path);
            records.uploads = [];
            copied = false;
          }
          records.uploads.push(...made);
        },
      });
      for await (const chunk of chunks) {
        yield chunk;
        copied = true;
      }
    },
    openFile(kind: FileKind, record: FileRecord): Promise<Readable> {
      const what = `Slack ${kind} file ${record.path}`;
      if (kind === 'uploads') {
        const origin = origins.get(record.path);
        if (!origin) return Promise.reject(new ImportError(`${what} is not one this export made`));
        return openOrigin(origin, record.size, what, openOpts);
      }
      const url = kind === 'avatars' ? avatarUrls.get(record.path) : kind === 'emoji' ? emoji.urls.get(record.path) : undefined;
      if (url === undefined) return Promise.reject(new ImportError(`${what} is not one this export made`));
      return openOrigin({ url }, undefined, what, openOpts);
    },
    async close() {},
  };
}
