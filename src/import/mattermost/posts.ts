import fs from 'node:fs';
import type { FileRecord, MessageChunk, Row } from '../source.js';
import { FLAG_BITS } from '../../lib/message-flags.js';
import { emojiCodeForName } from '../../emoji/index.js';
import { type JsonObject, num, objects, readLineAt, str, strings } from './lines.js';
import { type Scan, directMembers } from './scan.js';
import type { Conversations } from './channels.js';
import type { People } from './users.js';
import { type Names, convertMarkup } from './markup.js';
import { attachmentPathId, baseName, isImage } from './files.js';

/**
 * The second pass: the messages in date order, read back line by line, converted as
 * mattermost.py converts them. Every reply is a message of its own in its root's
 * conversation and topic (Zulip: "not explicitly marked as being in a thread"). Everyone is
 * marked as having read everything, as Zulip's converters do; `flagged_by` stars.
 */

export const CHUNK_SIZE = 1000;
/** Zulip's topic for every imported Mattermost channel message. */
export const TOPIC = 'imported from mattermost';
/** DATA_IMPORT_CLIENTS["ZulipDataImport"] in Zulip's import_util.py. */
export const IMPORT_CLIENT_ID = 5;

export interface MessageContext {
  file: string;
  /** Messages per chunk; CHUNK_SIZE (Zulip's) by default. */
  chunkSize?: number;
  scan: Scan;
  order: Uint32Array;
  people: People;
  conversations: Conversations;
  names: Names;
  realmEmojiIdByName: ReadonlyMap<string, number>;
  pathKey: Buffer;
  /** The uploads record of an attachment (its path id, its path under data/, its owner), made as its chunk is. */
  upload(pathId: string, relative: string, userId: number): FileRecord;
}

const emptyChunk = (): Required<MessageChunk> => ({ zerver_message: [], zerver_usermessage: [], zerver_reaction: [], zerver_attachment: [] });

export async function* messageChunks(ctx: MessageContext): AsyncGenerator<MessageChunk> {
  const fh = await fs.promises.open(ctx.file, 'r');
  const ids = { message: 0, usermessage: 0, reaction: 0, attachment: 0 };
  let cached: { offset: number; post: JsonObject } | undefined;
  let chunk = emptyChunk();
  try {
    for (const i of ctx.order) {
      const e = ctx.scan.index.entry(i);
      if (cached?.offset !== e.offset) {
        const line = await readLineAt(fh, e);
        cached = { offset: e.offset, post: line[line.type as string] as JsonObject };
      }
      const m = e.reply < 0 ? cached.post : objects(cached.post.replies)[e.reply]!;
      convertOne(ctx, chunk, ids, m, e, ctx.scan.conversations[e.conversation]!);
      if (chunk.zerver_message.length >= (ctx.chunkSize ?? CHUNK_SIZE)) {
        yield chunk;
        chunk = emptyChunk();
      }
    }
    if (chunk.zerver_message.length > 0) yield chunk;
  } finally {
    await fh.close();
  }
}

function convertOne(
  ctx: MessageContext, chunk: Required<MessageChunk>, ids: Record<'message' | 'usermessage' | 'reaction' | 'attachment', number>,
  m: JsonObject, e: { offset: number; reply: number }, conversation: string,
): void {
  const { people, conversations } = ctx;
  const senderName = str(m.user);
  const sender = people.idByName.get(senderName)!;
  const id = ++ids.message;

  let recipient: number;
  let audience: number[];
  const isDirect = conversation.startsWith('d\u0000');
  if (!isDirect) {
    recipient = conversations.recipientByKey.get(conversation)!;
    audience = conversations.subscribers.get(recipient) ?? [];
  } else {
    const members = directMembers(conversation);
    if (members.length > 2) {
      recipient = conversations.recipientByKey.get(conversation)!;
    } else {
      // Zulip's rule: the recipient is the member who is not the first, when the first sent it.
      const other = members.length === 1 ? members[0]! : senderName === members[0] ? members[1]! : members[0]!;
      recipient = conversations.personalRecipient.get(people.idByName.get(other)!)!;
    }
    audience = conversations.subscribers.get(recipient) ?? [];
  }

  const { content: text, mentioned, wildcard } = convertMarkup(str(m.message), ctx.names);
  const links: string[] = [];
  let hasImage = false;
  objects(m.attachments).forEach((a, index) => {
    const fileName = baseName(str(a.path));
    const pathId = attachmentPathId(ctx.pathKey, e.offset, e.reply, index, fileName);
    const upload = ctx.upload(pathId, str(a.path), sender);
    if (isImage(fileName)) hasImage = true;
    links.push(`[${fileName}](/user_uploads/${pathId})`);
    chunk.zerver_attachment.push({
      id: ++ids.attachment, owner: sender, realm: 1, path_id: pathId, file_name: fileName, size: upload.size,
      create_time: upload.last_modified, content_type: upload.content_type,
      is_realm_public: conversations.publicRecipients.has(recipient), is_web_public: false, messages: [id],
    });
  });
  const content = links.length === 0 ? text : [text, ...links].filter((s) => s !== '').join('\n');

  const createAt = num(m.create_at);
  const editAt = num(m.edit_at);
  chunk.zerver_message.push({
    id, sender, recipient, realm: 1, subject: isDirect ? '' : TOPIC, content, rendered_content: null,
    date_sent: createAt / 1000, last_edit_time: editAt > createAt ? editAt / 1000 : null, edit_history: null,
    sending_client: IMPORT_CLIENT_ID, has_attachment: links.length > 0, has_image: hasImage, has_link: links.length > 0,
    is_channel_message: !isDirect,
  });

  const starredBy = new Set(strings(m.flagged_by).map((u) => people.idByName.get(u)).filter((u): u is number => u !== undefined));
  const receivers = [...new Set([...audience, sender, ...starredBy])].sort((a, b) => a - b);
  for (const user of receivers) {
    let flags = FLAG_BITS.read;
    if (starredBy.has(user)) flags |= FLAG_BITS.starred;
    if (mentioned.has(user)) flags |= FLAG_BITS.mentioned;
    if (wildcard) flags |= FLAG_BITS.wildcard_mentioned;
    if (isDirect) flags |= FLAG_BITS.is_private;
    chunk.zerver_usermessage.push({ id: ++ids.usermessage, user_profile: user, message: id, flags_mask: flags });
  }

  const seen = new Set<string>();
  for (const r of objects(m.reactions)) {
    const user = people.idByName.get(str(r.user));
    const name = str(r.emoji_name);
    // As Zulip: a reaction by someone outside the import, or with an emoji it does not know, is dropped.
    if (user === undefined || seen.has(`${user}:${name}`)) continue;
    const row = reaction(ctx, name);
    if (!row) continue;
    seen.add(`${user}:${name}`);
    chunk.zerver_reaction.push({ id: ++ids.reaction, message: id, user_profile: user, emoji_name: name, ...row });
  }
}

function reaction(ctx: MessageContext, name: string): Row | undefined {
  const code = emojiCodeForName(name);
  if (code !== undefined) return { emoji_code: code, reaction_type: 'unicode_emoji' };
  const realmId = ctx.realmEmojiIdByName.get(name);
  if (realmId !== undefined) return { emoji_code: String(realmId), reaction_type: 'realm_emoji' };
  return undefined;
}
