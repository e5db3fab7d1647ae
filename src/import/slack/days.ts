/**
 * The export's messages in time order without holding them all: every conversation folder
 * holds one file per day, so one day of every conversation is read at a time and sorted by
 * Slack's `ts`, as Zulip's get_messages_iterator does.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ImportError } from '../source.js';
import { isObj, readObjects, seconds, type Obj } from './json.js';
import { renderBlocksAndAttachments } from './blocks.js';

const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.json$/;

export interface DatedMessage { folder: string; file: string; ts: number; message: Obj }

/** Day file name -> the folders that have one, days in order. */
export async function indexDays(dir: string, folders: string[]): Promise<[string, string[]][]> {
  const days = new Map<string, string[]>();
  for (const folder of folders) {
    let names: string[];
    try {
      names = await fs.readdir(path.join(dir, folder));
    } catch (e) {
      // A conversation without a single message has no folder in some exports.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new ImportError(`Slack export: folder ${folder} cannot be read (${(e as Error).message})`);
    }
    for (const name of names) {
      if (!DAY_FILE.test(name)) continue;
      const list = days.get(name) ?? [];
      list.push(folder);
      days.set(name, list);
    }
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function readDay(dir: string, day: string, folders: string[]): Promise<DatedMessage[]> {
  const out: DatedMessage[] = [];
  for (const folder of folders) {
    const file = `${folder}/${day}`;
    for (const message of (await readObjects(dir, file))!) {
      const ts = seconds(message.ts);
      if (ts === undefined) throw new ImportError(`Slack export: ${file} has a message without a valid "ts"`);
      out.push({ folder, file, ts, message });
    }
  }
  // Stable, so that messages of the same instant keep the order of their folders.
  return out.sort((a, b) => a.ts - b.ts);
}

/** Zulip's get_message_sending_user. */
export function senderOf(m: Obj): string | undefined {
  if (typeof m.user === 'string') return m.user;
  if (isObj(m.file) && typeof m.file.user === 'string') return m.file.user;
  return typeof m.bot_id === 'string' && m.bot_id !== '' ? m.bot_id : undefined;
}

/** Notices Zulip's converter leaves out: pins, joins, leaves and renames. */
const SKIPPED_SUBTYPES = ['pinned_item', 'unpinned_item', 'channel_join', 'channel_leave', 'channel_name'];

/**
 * The message's text to convert, or undefined when Zulip's converter skips the message: no
 * sender, the "U00" of some rename notices, Slack Posts (HTML), skipped notices, no text.
 */
export function importedText(m: Obj): string | undefined {
  const sender = senderOf(m);
  if (sender === undefined || sender === 'U00' || m.mimetype === 'application/vnd.slack-docs') return undefined;
  if (typeof m.subtype === 'string' && SKIPPED_SUBTYPES.includes(m.subtype)) return undefined;
  const rendered = renderBlocksAndAttachments(m);
  if (rendered !== '') return rendered;
  return typeof m.text === 'string' ? m.text : undefined;
}

/** Zulip's is_integration_bot_message: a bot's post that no Slack user sent. */
export const isIntegrationBotMessage = (m: Obj) => m.subtype === 'bot_message' && m.user === undefined && typeof m.bot_id === 'string';
