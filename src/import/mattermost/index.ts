import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileRecord, ImportSource, RealmTables } from '../source.js';
import { ImportError } from '../source.js';
import { str } from './lines.js';
import { scanExport } from './scan.js';
import { convertUsers } from './users.js';
import { convertConversations } from './channels.js';
import { FileStore, baseName, contentTypeOf, statInside } from './files.js';
import { IMPORT_CLIENT_ID, messageChunks } from './posts.js';

/**
 * A Mattermost bulk export (an extracted folder: export.json and the files it names) as an
 * ImportSource, converted as Zulip's zerver/data_import/mattermost.py converts it. One team
 * becomes the organization; direct messages come along only when the export has one team,
 * since Mattermost's export ties them to no team (Zulip's rule).
 */
export async function openMattermostSource(
  dir: string, opts: { team?: string; emailDomain: string; maxFileBytes: number; chunkSize?: number },
): Promise<ImportSource> {
  const file = path.join(dir, 'export.json');
  if (!fs.existsSync(file)) throw new ImportError(`${dir}: no export.json (is this a Mattermost bulk export?)`);
  const scan = await scanExport(file);

  const teamNames = scan.teams.map((t) => str(t.row.name));
  if (teamNames.length === 0) throw new ImportError('export.json has no team');
  let team: string;
  if (opts.team !== undefined) {
    if (!teamNames.includes(opts.team)) throw new ImportError(`export.json has no team "${opts.team}" (its teams: ${teamNames.join(', ')})`);
    team = opts.team;
  } else if (teamNames.length === 1) {
    team = teamNames[0]!;
  } else {
    throw new ImportError(`export.json has ${teamNames.length} teams, choose one with --team: ${teamNames.join(', ')}`);
  }
  const withDirect = teamNames.length === 1;
  const now = Math.floor(Date.now() / 1000);

  const people = convertUsers(scan, team, withDirect, opts.emailDomain, now);
  const conversations = convertConversations(scan, team, people, withDirect, now);
  const kept = (c: number): boolean => {
    const key = scan.conversations[c]!;
    return key.startsWith('d\u0000') ? withDirect : conversations.recipientByKey.has(key);
  };

  const files = new FileStore();
  const records: ImportSource['records'] = { uploads: [], avatars: [], emoji: [], realm_icons: [] };

  const zerver_realmemoji: RealmTables[string] = [];
  const realmEmojiIdByName = new Map<string, number>();
  for (const { row, lineNo } of scan.emoji) {
    const name = str(row.name);
    if (name === '' || realmEmojiIdByName.has(name)) continue;
    const source = statInside(dir, str(row.image), `export.json line ${lineNo}: emoji "${name}"`, opts.maxFileBytes);
    const id = zerver_realmemoji.length + 1;
    const fileName = `${name}${path.extname(source.absolute).toLowerCase()}`;
    zerver_realmemoji.push({ id, realm: 1, name, file_name: fileName, author: null, deactivated: false, is_animated: false });
    realmEmojiIdByName.set(name, id);
    const record: FileRecord = {
      path: `1/emoji/images/${fileName}`, s3_path: `1/emoji/images/${fileName}`, file_name: fileName, name, id, realm_id: 1,
      size: source.size, content_type: contentTypeOf(fileName), last_modified: source.mtime,
    };
    records.emoji.push(record);
    files.add('emoji', record, source);
  }

  // A fresh key each time: attachment path ids cannot be guessed from the export.
  const pathKey = crypto.randomBytes(32);
  const dataDir = path.join(dir, 'data');
  // Every attachment is checked now, so that a missing or oversized file fails the import
  // before anything is written. Its record is made with the chunk that links it.
  for (const a of scan.attachments) {
    if (kept(a.conversation)) statInside(dataDir, a.path, `export.json line ${a.lineNo}: attachment`, opts.maxFileBytes);
  }
  // The scan's notes of every attachment grow with the export: checking was all they were for.
  scan.attachments = [];
  // Once the next chunk is asked for, the loader has copied the last one's files
  // (ImportSource.records): their records, kept, would grow with the export.
  let copied = false;
  const upload = (pathId: string, relative: string, userId: number): FileRecord => {
    if (copied) {
      records.uploads = [];
      files.forget('uploads');
      copied = false;
    }
    const source = statInside(dataDir, relative, 'export.json: attachment', opts.maxFileBytes);
    const record: FileRecord = {
      path: pathId, s3_path: pathId, realm_id: 1, user_profile_id: userId, size: source.size,
      content_type: contentTypeOf(baseName(relative)), last_modified: source.mtime,
    };
    records.uploads.push(record);
    files.add('uploads', record, source);
    return record;
  };

  const realm: RealmTables = {
    zerver_realm: [{
      id: 1, name: team, string_id: team, description: 'Organization imported from Mattermost!', date_created: now,
    }],
    zerver_client: [{ id: IMPORT_CLIENT_ID, name: 'ZulipDataImport' }],
    zerver_userprofile: people.rows,
    zerver_stream: conversations.zerver_stream,
    zerver_huddle: conversations.zerver_huddle,
    zerver_recipient: conversations.zerver_recipient,
    zerver_subscription: conversations.zerver_subscription,
    zerver_defaultstream: [],
    zerver_realmemoji,
  };

  const order = scan.index.sorted(kept);
  const names = {
    userIdByName: people.idByName, fullNameById: people.fullNameById, streamNameByChannel: conversations.streamNameByChannel,
  };
  return {
    realm,
    messageCount: order.length,
    records,
    async *messages() {
      // A new pass makes its records anew.
      records.uploads = [];
      files.forget('uploads');
      copied = false;
      for await (const chunk of messageChunks({ file, chunkSize: opts.chunkSize, scan, order, people, conversations, names, realmEmojiIdByName, pathKey, upload })) {
        yield chunk;
        copied = true;
      }
    },
    openFile: (kind, record) => files.open(kind, record),
    close: async () => {},
  };
}

