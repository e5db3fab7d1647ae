import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openMattermostSource } from '../../src/import/mattermost/index.js';
import type { FileRecord, MessageChunk } from '../../src/import/source.js';

const DIR = path.join(import.meta.dirname, '../fixtures/mattermost/small');
const MTIME = 1700000000;

async function collect(chunks: AsyncIterable<MessageChunk>): Promise<MessageChunk[]> {
  const out: MessageChunk[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

test('a small export of our own converts to exactly the tables and messages Zulip\'s converter makes', async () => {
  // Files' times become the attachments' create_time; pinned so that the rows are exact.
  for (const f of ['data/files/notes.txt', 'data/files/cat photo.png', 'exported_emoji/e1/image.gif']) fs.utimesSync(path.join(DIR, f), MTIME, MTIME);
  const before = Math.floor(Date.now() / 1000);
  const src = await openMattermostSource(DIR, { emailDomain: 'import.invalid', maxFileBytes: 1000 });
  const after = Math.floor(Date.now() / 1000);
  const NOW = src.realm.zerver_realm![0]!.date_created as number;
  assert.ok(NOW >= before && NOW <= after);

  // Uploads records come with the chunk that links them (ImportSource.records).
  assert.equal(src.records.uploads.length, 0);
  const chunks = await collect(src.messages());
  // Attachment path ids are random per open: their shape is checked, then they are named.
  const P = src.records.uploads.map((r) => r.path);
  for (const p of P) assert.match(p, /^1\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/[\w.-]+$/);
  assert.equal(new Set(P).size, 3);

  assert.deepEqual(src.realm, {
  zerver_realm: [
    {id: 1, name: "acme", string_id: "acme", description: "Organization imported from Mattermost!", date_created: NOW},
  ],
  zerver_client: [
    {id: 5, name: "ZulipDataImport"},
  ],
  zerver_userprofile: [
    {id: 1, email: "alice@example.com", delivery_email: "alice@example.com", full_name: "Alice Admin", short_name: "alice", role: 100, is_active: true, is_mirror_dummy: false, is_bot: false, bot_type: null, bot_owner: null, timezone: "UTC", date_joined: NOW, avatar_source: "G", realm: 1},
    {id: 2, email: "bob@example.com", delivery_email: "bob@example.com", full_name: "Bob", short_name: "bob.b", role: 200, is_active: true, is_mirror_dummy: false, is_bot: false, bot_type: null, bot_owner: null, timezone: "UTC", date_joined: NOW, avatar_source: "G", realm: 1},
    {id: 3, email: "gus@import.invalid", delivery_email: "gus@import.invalid", full_name: "gus", short_name: "gus", role: 600, is_active: true, is_mirror_dummy: false, is_bot: false, bot_type: null, bot_owner: null, timezone: "UTC", date_joined: NOW, avatar_source: "G", realm: 1},
    {id: 4, email: "dora@example.com", delivery_email: "dora@example.com", full_name: "Dora Gone", short_name: "dora", role: 400, is_active: false, is_mirror_dummy: false, is_bot: false, bot_type: null, bot_owner: null, timezone: "UTC", date_joined: NOW, avatar_source: "G", realm: 1},
    {id: 5, email: "eve@example.com", delivery_email: "eve@example.com", full_name: "Eve Left", short_name: "eve", role: 400, is_active: false, is_mirror_dummy: true, is_bot: false, bot_type: null, bot_owner: null, timezone: "UTC", date_joined: NOW, avatar_source: "G", realm: 1},
  ],
  zerver_stream: [
    {id: 1, realm: 1, name: "Town Square", description: "Header only line two", rendered_description: "", invite_only: false, history_public_to_subscribers: true, is_web_public: false, deactivated: false, date_created: NOW, stream_post_policy: 1},
    {id: 2, realm: 1, name: "Secret Plans", description: "Plans, kept secret", rendered_description: "", invite_only: true, history_public_to_subscribers: false, is_web_public: false, deactivated: false, date_created: NOW, stream_post_policy: 1},
    {id: 3, realm: 1, name: "Old News", description: "Archived", rendered_description: "", invite_only: false, history_public_to_subscribers: true, is_web_public: false, deactivated: true, date_created: NOW, stream_post_policy: 1},
  ],
  zerver_huddle: [
    {id: 1, group_size: 3},
  ],
  zerver_recipient: [
    {id: 1, type: 1, type_id: 1},
    {id: 2, type: 1, type_id: 2},
    {id: 3, type: 1, type_id: 3},
    {id: 4, type: 1, type_id: 4},
    {id: 5, type: 1, type_id: 5},
    {id: 6, type: 2, type_id: 1},
    {id: 7, type: 2, type_id: 2},
    {id: 8, type: 2, type_id: 3},
    {id: 9, type: 3, type_id: 1},
  ],
  zerver_subscription: [
    {id: 1, user_profile: 1, recipient: 1, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 2, user_profile: 2, recipient: 2, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 3, user_profile: 3, recipient: 3, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 4, user_profile: 4, recipient: 4, active: true, is_user_active: false, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 5, user_profile: 5, recipient: 5, active: true, is_user_active: false, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 6, user_profile: 1, recipient: 6, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 7, user_profile: 2, recipient: 6, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 8, user_profile: 3, recipient: 6, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 9, user_profile: 4, recipient: 6, active: true, is_user_active: false, is_muted: false, pin_to_top: false, color: "#76ce90"},
    {id: 10, user_profile: 1, recipient: 7, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#fae589"},
    {id: 11, user_profile: 2, recipient: 7, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#fae589"},
    {id: 12, user_profile: 1, recipient: 8, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#a6c7e5"},
    {id: 13, user_profile: 1, recipient: 9, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#e79ab5"},
    {id: 14, user_profile: 2, recipient: 9, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#a6c7e5"},
    {id: 15, user_profile: 3, recipient: 9, active: true, is_user_active: true, is_muted: false, pin_to_top: false, color: "#fae589"},
  ],
  zerver_defaultstream: [
  ],
  zerver_realmemoji: [
    {id: 1, realm: 1, name: "party", file_name: "party.gif", author: null, deactivated: false, is_animated: false},
  ],  });
  assert.deepEqual(src.records, RECORDS(P));
  assert.equal(src.messageCount, 8);
  assert.equal(chunks.length, 1);
  assert.deepEqual(chunks[0], {
  zerver_message: [
    {id: 1, sender: 4, recipient: 8, realm: 1, subject: "imported from mattermost", content: "old", rendered_content: null, date_sent: 1600000000, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: true},
    {id: 2, sender: 5, recipient: 6, realm: 1, subject: "imported from mattermost", content: `late reply\n[notes.txt](/user_uploads/${P[0]})`, rendered_content: null, date_sent: 1700000001, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: true, has_image: false, has_link: true, is_channel_message: true},
    {id: 3, sender: 2, recipient: 7, realm: 1, subject: "imported from mattermost", content: `[cat photo.png](/user_uploads/${P[1]})\n[notes.txt](/user_uploads/${P[2]})`, rendered_content: null, date_sent: 1700000002, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: true, has_image: true, has_link: true, is_channel_message: true},
    {id: 4, sender: 1, recipient: 6, realm: 1, subject: "imported from mattermost", content: "Welcome @**Bob** and @**gus**! Ask @**all**, see #**Secret Plans**. Not `@alice` nor me@alice.com", rendered_content: null, date_sent: 1700000003, last_edit_time: 1700000090, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: true},
    {id: 5, sender: 2, recipient: 6, realm: 1, subject: "imported from mattermost", content: "Thanks!", rendered_content: null, date_sent: 1700000010, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: true},
    {id: 6, sender: 2, recipient: 1, realm: 1, subject: "", content: "hi @**Alice Admin**", rendered_content: null, date_sent: 1700000020, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: false},
    {id: 7, sender: 3, recipient: 9, realm: 1, subject: "", content: "group hello", rendered_content: null, date_sent: 1700000030, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: false},
    {id: 8, sender: 5, recipient: 1, realm: 1, subject: "", content: "a word in private", rendered_content: null, date_sent: 1700000040, last_edit_time: null, edit_history: null, sending_client: 5, has_attachment: false, has_image: false, has_link: false, is_channel_message: false},
  ],
  zerver_usermessage: [
    {id: 1, user_profile: 1, message: 1, flags_mask: 1},
    {id: 2, user_profile: 4, message: 1, flags_mask: 1},
    {id: 3, user_profile: 1, message: 2, flags_mask: 1},
    {id: 4, user_profile: 2, message: 2, flags_mask: 1},
    {id: 5, user_profile: 3, message: 2, flags_mask: 1},
    {id: 6, user_profile: 4, message: 2, flags_mask: 1},
    {id: 7, user_profile: 5, message: 2, flags_mask: 1},
    {id: 8, user_profile: 1, message: 3, flags_mask: 1},
    {id: 9, user_profile: 2, message: 3, flags_mask: 1},
    {id: 10, user_profile: 1, message: 4, flags_mask: 17},
    {id: 11, user_profile: 2, message: 4, flags_mask: 27},
    {id: 12, user_profile: 3, message: 4, flags_mask: 25},
    {id: 13, user_profile: 4, message: 4, flags_mask: 17},
    {id: 14, user_profile: 1, message: 5, flags_mask: 1},
    {id: 15, user_profile: 2, message: 5, flags_mask: 1},
    {id: 16, user_profile: 3, message: 5, flags_mask: 1},
    {id: 17, user_profile: 4, message: 5, flags_mask: 1},
    {id: 18, user_profile: 1, message: 6, flags_mask: 2059},
    {id: 19, user_profile: 2, message: 6, flags_mask: 2049},
    {id: 20, user_profile: 1, message: 7, flags_mask: 2049},
    {id: 21, user_profile: 2, message: 7, flags_mask: 2049},
    {id: 22, user_profile: 3, message: 7, flags_mask: 2049},
    {id: 23, user_profile: 1, message: 8, flags_mask: 2049},
    {id: 24, user_profile: 5, message: 8, flags_mask: 2049},
  ],
  zerver_reaction: [
    {id: 1, message: 4, user_profile: 2, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji"},
    {id: 2, message: 4, user_profile: 3, emoji_name: "party", emoji_code: "1", reaction_type: "realm_emoji"},
    {id: 3, message: 7, user_profile: 1, emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji"},
  ],
  zerver_attachment: [
    {id: 1, owner: 5, realm: 1, path_id: P[0], file_name: "notes.txt", size: 11, create_time: MTIME, content_type: "text/plain", is_realm_public: true, is_web_public: false, messages: [2]},
    {id: 2, owner: 2, realm: 1, path_id: P[1], file_name: "cat photo.png", size: 9, create_time: MTIME, content_type: "image/png", is_realm_public: false, is_web_public: false, messages: [3]},
    {id: 3, owner: 2, realm: 1, path_id: P[2], file_name: "notes.txt", size: 11, create_time: MTIME, content_type: "text/plain", is_realm_public: false, is_web_public: false, messages: [3]},
  ],  });

  // openFile hands out the bytes of the file a record names.
  const stream = await src.openFile('uploads', src.records.uploads[1]!);
  const bytes: Buffer[] = [];
  for await (const b of stream) bytes.push(b as Buffer);
  assert.deepEqual(Buffer.concat(bytes), fs.readFileSync(path.join(DIR, 'data/files/cat photo.png')));
  await src.close();
});

const RECORDS = (P: string[]) => (
{uploads: [{path: P[0], s3_path: P[0], realm_id: 1, user_profile_id: 5, size: 11, content_type: "text/plain", last_modified: MTIME}, {path: P[1], s3_path: P[1], realm_id: 1, user_profile_id: 2, size: 9, content_type: "image/png", last_modified: MTIME}, {path: P[2], s3_path: P[2], realm_id: 1, user_profile_id: 2, size: 11, content_type: "text/plain", last_modified: MTIME}], avatars: [], emoji: [{path: "1/emoji/images/party.gif", s3_path: "1/emoji/images/party.gif", file_name: "party.gif", name: "party", id: 1, realm_id: 1, size: 12, content_type: "image/gif", last_modified: MTIME}], realm_icons: []});

test('uploads records are those of the chunk given last: what the source keeps does not grow with the export', async () => {
  const src = await openMattermostSource(DIR, { emailDomain: 'import.invalid', maxFileBytes: 1000, chunkSize: 2 });
  const seen: Array<{ messages: number[]; records: string[]; linked: string[] }> = [];
  const earlier: FileRecord[] = [];
  for await (const c of src.messages()) {
    const linked = c.zerver_attachment!.map((a) => a.path_id as string);
    seen.push({ messages: c.zerver_message.map((m) => m.id as number), records: src.records.uploads.map((r) => r.path), linked });
    // The loader copies a chunk's files before it asks for the next: they open now.
    for (const r of src.records.uploads) (await src.openFile('uploads', r)).destroy();
    earlier.push(...src.records.uploads.filter((r) => !earlier.includes(r)));
  }
  assert.deepEqual(seen.map((s) => s.messages), [[1, 2], [3, 4], [5, 6], [7, 8]]);
  // Messages 2 and 3 link files: each chunk with files holds its own records, and only them.
  assert.deepEqual(seen.map((s) => s.linked.length), [1, 2, 0, 0]);
  for (const s of seen.slice(0, 2)) assert.deepEqual(s.records, s.linked);
  // A chunk without files leaves the last records be; the next with files starts anew.
  assert.deepEqual(seen[2]!.records, seen[1]!.linked);
  // A done chunk's file is no longer known.
  await assert.rejects(src.openFile('uploads', earlier[0]!), /no file/);
  // A second pass makes the records anew.
  for await (const c of src.messages()) void c;
  assert.equal(src.records.uploads.length, 2);
  await src.close();
});
