/**
 * Slack messages to Zulip's message chunks, as Zulip's channel_message_to_zerver_message:
 * converted markup, /me for action notices, files as attachments, threads as topics,
 * reactions, and a zerver_usermessage row (read, mentioned, private) for each recipient but
 * long-term idle people, who get one only for private messages and mentions (build_usermessages).
 */
import { ImportError, type FileRecord, type MessageChunk, type Row } from '../source.js';
import type { Conversation } from './channels.js';
import { importedText, indexDays, readDay, senderOf } from './days.js';
import { emojiForSlackName } from './emoji.js';
import { convertFiles, type FileContext } from './files.js';
import { obj, objList, optStr, seconds, type Obj } from './json.js';
import { convertSlackMarkup } from './markup.js';
import { DEFAULT_TOPIC, ThreadTopics } from './threads.js';
import type { SlackPerson } from './users.js';

/** Zulip's UserMessage flag bits the converter sets. */
const READ = 1, MENTIONED = 8, IS_PRIVATE = 2048;
/** Zulip's client id for imported messages (DATA_IMPORT_CLIENTS). */
const IMPORT_CLIENT = 5;
const ME_SUBTYPES = ['bot_add', 'sh_room_created', 'me_message'];

export interface MessageContext {
  dir: string;
  realmId: number;
  chunkSize: number;
  conversations: Conversation[];
  people: Map<string, SlackPerson>;
  channelNames: Map<string, string>;
  personalRecipient: Map<number, number>;
  subscribers: Map<number, number[]>;
  emailOf: Map<number, string>;
  /** Long-term idle people (users.ts idlePeople): no row for a stream message that does not mention them. */
  idle: ReadonlySet<number>;
  realmEmoji: Map<string, number>;
  files: FileContext;
  /** Takes the uploads records of the chunk being made. */
  addUploads(records: FileRecord[]): void;
}

interface Counters { message: number; usermessage: number; reaction: number }

const emptyChunk = (): Required<MessageChunk> => ({ zerver_message: [], zerver_usermessage: [], zerver_reaction: [], zerver_attachment: [] });

export async function* convertMessages(ctx: MessageContext): AsyncGenerator<MessageChunk> {
  const byFolder = new Map(ctx.conversations.map((c) => [c.folder, c]));
  const days = await indexDays(ctx.dir, ctx.conversations.map((c) => c.folder));
  const threads = new ThreadTopics();
  const counters: Counters = { message: 0, usermessage: 0, reaction: 0 };
  let chunk = emptyChunk();
  for (const [day, folders] of days) {
    for (const { folder, file, ts, message } of await readDay(ctx.dir, day, folders)) {
      const text = importedText(message);
      if (text === undefined) continue;
      await convertOne(ctx, chunk, counters, threads, byFolder.get(folder)!, file, ts, message, text);
      if (chunk.zerver_message.length >= ctx.chunkSize) {
        yield chunk;
        chunk = emptyChunk();
      }
    }
  }
  if (chunk.zerver_message.length > 0) yield chunk;
}

async function convertOne(
  ctx: MessageContext, chunk: Required<MessageChunk>, counters: Counters, threads: ThreadTopics,
  conv: Conversation, file: string, ts: number, message: Obj, text: string,
): Promise<void> {
  const slackSender = senderOf(message)!;
  const sender = ctx.people.get(slackSender);
  if (!sender) throw new ImportError(`Slack export: ${file}: the message of ts ${String(message.ts)} is from ${slackSender}, who is not in users.json`);
  const converted = convertSlackMarkup(text, { people: ctx.people, channelNames: ctx.channelNames });

  let recipient: number;
  let senderRecipient: number | undefined;
  if (conv.kind === 'dm') {
    const [a, b] = conv.members.map((m) => ctx.personalRecipient.get(ctx.people.get(m)!.id)!) as [number, number];
    [recipient, senderRecipient] = slackSender === conv.members[0] ? [b, a] : [a, b];
  } else recipient = conv.recipient;
  const isPrivate = conv.kind !== 'stream';

  const id = ++counters.message;
  chunk.zerver_reaction.push(...reactionsOf(message, id, ctx, counters));

  const subtype = optStr(message, 'subtype');
  let content = converted.content;
  if (subtype !== undefined && ME_SUBTYPES.includes(subtype)) content = `/me ${content}`;
  const files = await convertFiles(
    message, conv.folder, id, sender.id, ctx.emailOf.get(sender.id)!, conv.kind === 'stream' && !conv.invitesOnly, ctx.files,
  );
  chunk.zerver_attachment.push(...files.attachments);
  ctx.addUploads(files.records);
  // Zulip drops NUL bytes from imported content.
  content = [content, files.links.join('\n')].filter((p) => p !== '').join('\n').replaceAll('\0', '');

  let topic = isPrivate ? '' : DEFAULT_TOPIC;
  const threadTs = optStr(message, 'thread_ts');
  if (!isPrivate && threadTs !== undefined) topic = threads.topicFor(conv.folder, message, threadTs, content);

  const edited = obj(message, 'edited');
  chunk.zerver_message.push({
    id, realm: ctx.realmId, sender: sender.id, recipient, subject: topic, content, rendered_content: null,
    rendered_content_version: 1, date_sent: ts, last_edit_time: seconds(edited?.ts) ?? null, edit_history: null,
    sending_client: IMPORT_CLIENT, has_attachment: files.hasAttachment, has_image: files.hasImage,
    has_link: converted.hasLink || files.hasLink, is_channel_message: !isPrivate,
  });
  const mentioned = new Set(converted.mentioned);
  for (const r of senderRecipient !== undefined && senderRecipient !== recipient ? [recipient, senderRecipient] : [recipient]) {
    for (const user of ctx.subscribers.get(r) ?? []) {
      if (!isPrivate && ctx.idle.has(user) && !mentioned.has(user)) continue;
      chunk.zerver_usermessage.push({
        id: ++counters.usermessage, user_profile: user, message: id,
        flags_mask: READ | (mentioned.has(user) ? MENTIONED : 0) | (isPrivate ? IS_PRIVATE : 0),
      });
    }
  }
}

/** Skin tones merged into their base emoji, people Slack no longer knows left out, one row per (person, emoji). */
function reactionsOf(message: Obj, messageId: number, ctx: MessageContext, counters: Counters): Row[] {
  const merged = new Map<string, Set<string>>();
  for (const r of objList(message, 'reactions')) {
    const name = optStr(r, 'name');
    if (name === undefined) continue;
    const base = name.split('::')[0]!;
    const users = merged.get(base) ?? new Set<string>();
    if (Array.isArray(r.users)) for (const u of r.users) if (typeof u === 'string') users.add(u);
    merged.set(base, users);
  }
  const rows: Row[] = [];
  const seen = new Set<string>();
  for (const [name, users] of merged) {
    const emoji = emojiForSlackName(name, ctx.realmEmoji);
    if (!emoji) continue;
    for (const u of users) {
      const person = ctx.people.get(u);
      if (!person) continue;
      const key = `${person.id}\0${emoji.reaction_type}\0${emoji.emoji_code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({ id: ++counters.reaction, message: messageId, user_profile: person.id, ...emoji });
    }
  }
  return rows;
}

