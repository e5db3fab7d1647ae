import crypto from 'node:crypto';
import { softDeactivation } from '../store/repos/soft-deactivation.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import type { Q } from '../store/rows.js';
import type { MessageRow } from '../store/rows.js';
import { exportReads } from '../store/repos/export.js';
import { emojiStorageKey } from '../presenters/realm-emoji.js';
import { avatarStorageBase } from '../presenters/user.js';
import { users } from '../store/repos/users.js';
import { LATEST_FEATURE_LEVEL, zulipVersionOf } from '../lib/version.js';
import type { Progress, Row } from '../import/source.js';
import { readRealmTables } from './realm-tables.js';
import { JsonTablesFile } from './json-tables-file.js';
import { TarWriter } from './tar-writer.js';

/** Messages per messages-NNNNNN.json, as Zulip's export writes them. */
export const MESSAGES_PER_FILE = 1000;
const PAGE = 5000;
/** The export layout's version for Parley's own importer (Zulip's importer reads migration_status.json's migrations). */
export const PARLEY_EXPORT_FORMAT = 1;

interface Run {
  ctx: AppContext;
  q: Q;
  realmId: number;
  tar: TarWriter;
  /** The archive's top folder, as Zulip's `manage.py export` names its output directory. */
  top: string;
  work: string;
  progress: Progress;
  emailOf: Map<number, string>;
  messagesPerFile: number;
}

/**
 * The organization in Zulip's export format (zerver/lib/export.py), as OUT.tar.gz: one top
 * folder holding realm.json, messages-NNNNNN.json, attachment.json, migration_status.json and
 * the uploads/, avatars/, emoji/ and realm_icons/ folders with their records.json. Everything
 * is read on one snapshot of the database while the server goes on serving, and written as
 * it is read (messages a page at a time, big tables through files on disk), so memory stays
 * bounded. The archive appears at `outFile` only once complete.
 */
export async function exportRealm(ctx: AppContext, realmId: number, outFile: string, progress: Progress,
  opts: { messagesPerFile?: number } = {}): Promise<{ messages: number; files: number }> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-export-'));
  const partial = path.join(path.dirname(path.resolve(outFile)), `.${path.basename(outFile)}.${crypto.randomBytes(6).toString('hex')}.partial`);
  const tar = new TarWriter(partial);
  try {
    // An export carries every recipient row: soft-deactivated people's are made first, so
    // that the snapshot holds them all and the export says no one is idle.
    // Each statement commits alone: catching up is idempotent, so a failure midway is harmless.
    const idle = await softDeactivation.idleIds(ctx.store.db, 0, Number.MAX_SAFE_INTEGER, realmId);
    for (let i = 0; i < idle.length; i += 100) await softDeactivation.catchUp(ctx.store.db, idle.slice(i, i + 100));
    const result = await ctx.store.snapshot(async (q) => {
      progress.phase('Organization');
      const read = await readRealmTables(q, realmId);
      progress.done();
      const run: Run = {
        ctx, q, realmId, tar, top: `zulip-export-${crypto.randomBytes(6).toString('hex')}`, work, progress, emailOf: read.emailOf,
        messagesPerFile: opts.messagesPerFile ?? MESSAGES_PER_FILE,
      };
      const files = await writeFiles(run, read.tables.zerver_realmemoji ?? []);
      const { count, clients } = await writeMessages(run);
      const realmJson = new JsonTablesFile(path.join(work, 'realm.json'));
      try {
        // Scheduled messages name their client as messages do: by a zerver_client row.
        for (const m of read.tables.zerver_scheduledmessage ?? []) {
          const name = String(m.sending_client);
          if (!clients.has(name)) clients.set(name, clients.size + 1);
          m.sending_client = clients.get(name);
        }
        for (const [name, rows] of Object.entries(read.tables)) await realmJson.table(name, rows);
        await realmJson.table('zerver_client', [...clients].map(([name, id]) => ({ id, name })));
        await writeReactions(run, realmJson);
        await realmJson.close();
      } finally {
        realmJson.destroy();
      }
      await tar.addFile(`${run.top}/realm.json`, realmJson.path);
      // Parley keeps no usage statistics; Zulip's importer reads the file when it is there.
      await tar.addBuffer(`${run.top}/analytics.json`, JSON.stringify({ analytics_realmcount: [], analytics_usercount: [], analytics_streamcount: [] }));
      await tar.addBuffer(`${run.top}/migration_status.json`, JSON.stringify({
        zulip_version: zulipVersionOf(LATEST_FEATURE_LEVEL).version, feature_level: LATEST_FEATURE_LEVEL,
        migrations_by_app: {}, parley_export_format: PARLEY_EXPORT_FORMAT,
      }));
      return { messages: count, files };
    });
    await tar.finish();
    fs.renameSync(partial, outFile);
    return result;
  } catch (err) {
    tar.abort(err instanceof Error ? err : new Error(String(err)));
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function messageRow(m: MessageRow, clientId: number): Row {
  return {
    id: m.id, sender: m.sender_id, recipient: m.recipient_id, realm: m.realm_id, subject: m.topic, content: m.content,
    rendered_content: m.rendered_content, rendered_content_version: m.rendered_content_version, date_sent: m.date_sent,
    sending_client: clientId, last_edit_time: m.last_edit_time, edit_history: m.edit_history,
    has_attachment: m.has_attachment === 1, has_image: m.has_image === 1, has_link: m.has_link === 1,
    is_channel_message: m.stream_id !== null,
    // Zulip's Message.MessageType.NORMAL.
    type: 1,
  };
}

async function writeMessages(run: Run): Promise<{ count: number; clients: Map<string, number> }> {
  const clients = new Map<string, number>();
  run.progress.phase('Messages', await exportReads.messageCount(run.q, run.realmId));
  let after = 0;
  let file = 0;
  let count = 0;
  let userMessageId = 0;
  for (;;) {
    const page = await exportReads.messagePage(run.q, run.realmId, after, run.messagesPerFile);
    if (page.length === 0) break;
    const userMessages = await exportReads.userMessagesOf(run.q, page.map((m) => m.id));
    const zerverMessage = page.map((m) => {
      let client = clients.get(m.client);
      if (client === undefined) clients.set(m.client, client = clients.size + 1);
      return messageRow(m, client);
    });
    const zerverUserMessage = userMessages.map((um) => ({ id: ++userMessageId, user_profile: um.user_id, message: um.message_id, flags_mask: um.flags }));
    file += 1;
    await run.tar.addBuffer(`${run.top}/messages-${String(file).padStart(6, '0')}.json`,
      JSON.stringify({ zerver_message: zerverMessage, zerver_usermessage: zerverUserMessage }));
    after = page[page.length - 1]!.id;
    count += page.length;
    run.progress.tick(page.length);
  }
  run.progress.done();
  return { count, clients };
}

async function writeReactions(run: Run, out: JsonTablesFile): Promise<void> {
  await out.begin('zerver_reaction');
  for (let after = 0; ;) {
    const page = await exportReads.reactionPage(run.q, run.realmId, after, PAGE);
    if (page.length === 0) break;
    for (const r of page) {
      await out.row({ id: r.id, user_profile: r.user_id, message: r.message_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type });
    }
    after = page[page.length - 1]!.id;
  }
  await out.end();
}

/** A stored object copied to a file of the work folder: tar needs its exact size before its bytes. */
async function spool(run: Run, key: string, expected = true): Promise<string | undefined> {
  const body = await run.ctx.storage.get(key);
  if (!body) {
    if (expected) run.ctx.log.warn({ key }, 'export: a stored file is missing; left out of the export');
    return undefined;
  }
  const file = path.join(run.work, 'spool');
  await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
  return file;
}

/** uploads/ with attachment.json, emoji/, avatars/, and the empty realm_icons/ (Parley keeps no icon files). */
async function writeFiles(run: Run, emoji: Row[]): Promise<number> {
  run.progress.phase('Files');
  let files = 0;
  const attachments = new JsonTablesFile(path.join(run.work, 'attachment.json'));
  const records = new JsonTablesFile(path.join(run.work, 'uploads-records.json'), true);
  try {
    await attachments.begin('zerver_attachment');
    for (let after = 0; ;) {
      const page = await exportReads.attachmentPage(run.q, run.realmId, after, PAGE);
      if (page.length === 0) break;
      const links = await exportReads.attachmentMessages(run.q, page.map((a) => a.id));
      const messagesOf = new Map<number, number[]>();
      for (const l of links) messagesOf.set(l.attachment_id, [...(messagesOf.get(l.attachment_id) ?? []), l.message_id]);
      for (const a of page) {
        await attachments.row({
          id: a.id, realm: a.realm_id, owner: a.owner_id, path_id: a.path_id, file_name: a.file_name, content_type: a.content_type,
          size: a.size, create_time: a.create_time, is_realm_public: null, is_web_public: null,
          messages: messagesOf.get(a.id) ?? [], scheduled_messages: [],
        });
        const spooled = await spool(run, a.path_id);
        if (!spooled) continue;
        await run.tar.addFile(`${run.top}/uploads/${a.path_id}`, spooled);
        await records.row({
          path: a.path_id, s3_path: a.path_id, realm_id: a.realm_id, user_profile_id: a.owner_id,
          user_profile_email: run.emailOf.get(a.owner_id) ?? '', size: a.size, last_modified: a.create_time, content_type: a.content_type,
        });
        files += 1;
        run.progress.tick();
      }
      after = page[page.length - 1]!.id;
    }
    await attachments.end();
    await attachments.close();
    await records.close();
  } finally {
    attachments.destroy();
    records.destroy();
  }
  await run.tar.addFile(`${run.top}/attachment.json`, attachments.path);
  await run.tar.addFile(`${run.top}/uploads/records.json`, records.path);

  const emojiRecords: Row[] = [];
  for (const e of emoji) {
    if (typeof e.file_name !== 'string') continue;
    const image = emojiStorageKey(run.realmId, e.file_name);
    // The image as served, and as uploaded (Zulip exports both, the second as `.original`).
    for (const key of [image, `${image}.original`]) {
      const spooled = await spool(run, key, key === image);
      if (!spooled) continue;
      await run.tar.addFile(`${run.top}/emoji/${key}`, spooled);
      emojiRecords.push({ realm_id: run.realmId, author: e.author, path: key, s3_path: key, file_name: e.file_name, name: e.name, deactivated: e.deactivated });
      files += 1;
      run.progress.tick();
    }
  }
  await run.tar.addBuffer(`${run.top}/emoji/records.json`, JSON.stringify(emojiRecords));
  // Uploaded avatars: the original as uploaded and the served size, as Zulip exports them.
  const avatarRecords: Row[] = [];
  for (const u of await users.listByRealm(run.q, run.realmId)) {
    const base = u.avatar_source === 'U' ? avatarStorageBase(u) : undefined;
    if (base === undefined) continue;
    for (const key of [`${base}.original`, `${base}.png`]) {
      const spooled = await spool(run, key);
      if (!spooled) continue;
      await run.tar.addFile(`${run.top}/avatars/${key}`, spooled);
      avatarRecords.push({ path: key, s3_path: key, realm_id: run.realmId, user_profile_id: u.id, user_profile_email: run.emailOf.get(u.id) ?? '', size: fs.statSync(spooled).size });
      files += 1;
    }
  }
  await run.tar.addBuffer(`${run.top}/avatars/records.json`, JSON.stringify(avatarRecords));
  await run.tar.addBuffer(`${run.top}/realm_icons/records.json`, '[]');
  run.progress.done();
  return files;
}
