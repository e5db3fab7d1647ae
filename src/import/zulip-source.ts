/**
 * A Zulip export, as `manage.py export` and `parley export` write it, read from its unpacked
 * folder: realm.json, messages-000001.json..., and the file folders with their records.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { openInside, readJson } from './archive.js';
import { ImportError, type FileKind, type FileRecord, type ImportSource, type MessageChunk, type RealmTables, type Row } from './source.js';

/** realm.json and each messages file are parsed whole: bounded so that a hostile one cannot exhaust memory. */
const MAX_JSON_BYTES = 1024 ** 3;
const FILE_KINDS: FileKind[] = ['uploads', 'avatars', 'emoji', 'realm_icons'];

function tablesOf(value: unknown, file: string): RealmTables {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ImportError(`${file} is not an object of tables`);
  const out: RealmTables = {};
  for (const [name, rows] of Object.entries(value)) {
    if (!Array.isArray(rows)) continue;
    if (rows.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) throw new ImportError(`${file}: ${name} holds something other than rows`);
    out[name] = rows as Row[];
  }
  return out;
}

async function records(root: string, kind: FileKind): Promise<FileRecord[]> {
  if (!fs.existsSync(path.join(root, kind, 'records.json'))) return [];
  const value = await readJson(root, `${kind}/records.json`, MAX_JSON_BYTES);
  if (!Array.isArray(value)) throw new ImportError(`${kind}/records.json is not a list`);
  return value.map((r, i) => {
    if (typeof r !== 'object' || r === null || typeof (r as Row).path !== 'string') throw new ImportError(`${kind}/records.json: entry ${i + 1} has no path`);
    return r as FileRecord;
  });
}

export async function openZulipSource(root: string, opts: { maxFileBytes: number }): Promise<ImportSource> {
  const realm = tablesOf(await readJson(root, 'realm.json', MAX_JSON_BYTES), 'realm.json');
  if (!Array.isArray(realm.zerver_realm) || realm.zerver_realm.length !== 1) throw new ImportError('realm.json must hold exactly one zerver_realm row');
  // Zulip writes attachments to attachment.json beside realm.json (older exports kept them in it).
  if (fs.existsSync(path.join(root, 'attachment.json'))) {
    const attachments = tablesOf(await readJson(root, 'attachment.json', MAX_JSON_BYTES), 'attachment.json');
    realm.zerver_attachment = [...(realm.zerver_attachment ?? []), ...(attachments.zerver_attachment ?? [])];
  }
  const messageFiles = (await fs.promises.readdir(root)).filter((f) => /^messages-\d{6}\.json$/.test(f)).sort();
  const recordLists = Object.fromEntries(await Promise.all(FILE_KINDS.map(async (k) => [k, await records(root, k)] as const))) as Record<FileKind, FileRecord[]>;
  return {
    realm,
    // Zulip writes 1000 messages per file, the last one fewer: close enough for a progress bar.
    messageCount: messageFiles.length * 1000,
    records: recordLists,
    async *messages(): AsyncIterable<MessageChunk> {
      for (const file of messageFiles) {
        const tables = tablesOf(await readJson(root, file, MAX_JSON_BYTES), file);
        yield {
          zerver_message: tables.zerver_message ?? [],
          zerver_usermessage: tables.zerver_usermessage ?? [],
          ...(tables.zerver_reaction ? { zerver_reaction: tables.zerver_reaction } : {}),
        };
      }
    },
    async openFile(kind: FileKind, record: FileRecord): Promise<Readable> {
      const { path: full, size } = await openInside(path.join(root, kind), record.path, opts.maxFileBytes);
      if (typeof record.size === 'number' && size !== record.size) throw new ImportError(`${kind}/${record.path} holds ${size} bytes, not its declared ${record.size}`);
      return fs.createReadStream(full);
    },
    async close() {},
  };
}
