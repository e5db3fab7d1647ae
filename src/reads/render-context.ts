import { topicLinks } from '../store/repos/topic-links.js';
import type { Q, RealmRow, UserRow } from '../store/rows.js';
import type { RenderContext } from '../markdown/types.js';
import { users } from '../store/repos/users.js';
import { streams } from '../store/repos/streams.js';
import { cachedRead, type RealmRenderUsers, type RenderUser } from '../cache/index.js';
import { canSeeStream } from '../access/stream.js';
import { mentionableGroups } from './user-groups.js';
import { realmSettings } from '../lib/realm-settings.js';
import { BotType } from '../lib/roles.js';
import { realmLinkifiers } from './linkifiers.js';
import { realmEmoji } from '../store/repos/realm-emoji.js';
import { presentRealmEmoji } from '../presenters/realm-emoji.js';
import { attachments } from '../store/repos/attachments.js';

/** The path_ids of /user_uploads/ links in a message (relative or on any host: the renderer checks the link itself). */
const UPLOAD_PATH = /\/user_uploads\/(\d+\/[^\s)\]<>"']+)/g;

// Mentions need every active user of the realm by name; reloaded only when a user changed.
const realmUsers = (q: Q, realmId: number): Promise<RealmRenderUsers> => cachedRead(q, (c) => c.renderUsers, realmId, async () => {
  const byName = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  const outgoingBotIds = new Set<number>();
  for (const row of await users.listActiveNamesInRealm(q, realmId)) {
    const u = { id: row.id, full_name: row.full_name, email: row.email };
    byId.set(u.id, u);
    if (row.bot_type === BotType.OUTGOING_WEBHOOK) outgoingBotIds.add(u.id);
    const key = u.full_name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), u]);
  }
  return { byName, byId, outgoingBotIds };
});

/** Which of `userIds` are active outgoing-webhook bots of the realm (from the mention cache: no query once warm). */
export async function outgoingBotsAmong(q: Q, realmId: number, userIds: Iterable<number>): Promise<number[]> {
  const { outgoingBotIds } = await realmUsers(q, realmId);
  if (outgoingBotIds.size === 0) return [];
  return [...userIds].filter((id) => outgoingBotIds.has(id));
}

/** At most this many topic links of one message are looked up (each is one indexed query). */
const MAX_TOPIC_LINKS = 20;

/**
 * Level 347: the newest message of each topic `content` links (`#**stream>topic**`) in a
 * stream the author may link, keyed by stream id and lowercased topic.
 */
async function linkedTopicsLatest(q: Q, content: string, linkable: ReadonlyMap<string, { id: number }>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of content.matchAll(/#\*\*([^*\n>]*)>([^\n]*?)\*\*/g)) {
    const stream = linkable.get(m[1]!.toLowerCase());
    const key = stream ? `${stream.id}\u0000${m[2]!.toLowerCase()}` : undefined;
    if (!stream || !key || out.has(key)) continue;
    if (out.size >= MAX_TOPIC_LINKS) break;
    const id = await topicLinks.latestId(q, stream.id, m[2]!.toLowerCase());
    if (id !== undefined) out.set(key, id);
  }
  return out;
}

/**
 * What `author` may reference in `content`: realm users, and the streams they can see.
 * Streams and groups are only looked up when the content has a stream link or a group
 * mention, which most messages do not.
 */
export async function renderContextFor(q: Q, realm: RealmRow, author: UserRow, content: string, featureLevel?: number): Promise<RenderContext> {
  const people = await realmUsers(q, realm.id);
  const linkifiers = await realmLinkifiers(q, realm.id);
  const linkable = !content.includes('#**') ? [] : await streams.listActiveWithSubscription(q, realm.id, author.id);
  // Groups likewise only when a group mention (`@*` or `@_*`) may be there.
  const groups = content.includes('@*') || content.includes('@_*') ? await mentionableGroups(q, realm.id, (featureLevel ?? 122) >= 333) : undefined;
  const byName = new Map<string, { id: number; name: string }>();
  for (const s of linkable) {
    const sub = s.sub_active === 1 ? ({ active: 1 } as never) : null;
    if (canSeeStream(author, s, sub)) byName.set(s.name_lower, { id: s.id, name: s.name });
  }
  // Custom emoji only when the content names one (`:name:`): one indexed query then.
  const emoji = !/:[a-z0-9_.+-]+:/i.test(content) ? undefined
    : new Map((await realmEmoji.listByRealm(q, realm.id)).filter((e) => e.deactivated === 0 && e.file_name !== null).map((e) => [e.name, presentRealmEmoji(e).source_url]));
  // Uploaded images only when the content links an upload: one indexed query then.
  const pathIds = content.includes('/user_uploads/') ? [...new Set([...content.matchAll(UPLOAD_PATH)].map((m) => m[1]!))].slice(0, 100) : [];
  const images = new Map<string, { width: number; height: number; contentType?: string }>();
  for (const a of await attachments.listByPathIds(q, realm.id, pathIds)) {
    if (a.image_width !== null && a.image_height !== null) images.set(a.path_id, { width: a.image_width, height: a.image_height, contentType: a.content_type });
  }
  const latest = featureLevel !== undefined && featureLevel >= 347 ? await linkedTopicsLatest(q, content, byName) : undefined;
  return {
    ...(latest && latest.size > 0 ? { latestInTopic: (streamId: number, topicLower: string) => latest.get(`${streamId}\u0000${topicLower}`) } : {}),
    ...(images.size > 0 ? { uploadedImages: images } : {}),
    ...(emoji && emoji.size > 0 ? { customEmojiUrl: (name: string) => emoji.get(name) } : {}),
    userByName: (name) => people.byName.get(name.toLowerCase()) ?? [],
    userById: (id) => people.byId.get(id),
    groupByName: (name) => groups?.get(name.toLowerCase()),
    streamByName: (name) => byName.get(name.toLowerCase()),
    linkifiers,
    defaultCodeBlockLanguage: realmSettings(realm.settings).default_code_block_language,
    ...(featureLevel !== undefined ? { featureLevel } : {}),
  };
}

/**
 * The importer's contexts, one per author, built once for a whole organization rather than
 * per message: every user by name (deactivated ones too: a mention stays a mention), the
 * public streams and the private ones the author belongs to, the groups, the custom emoji
 * and linkifiers as they stand once the import has loaded them.
 */
export async function importRenderContexts(q: Q, realm: RealmRow, privateMembers: ReadonlyMap<number, ReadonlySet<number>>, featureLevel: number): Promise<(authorId: number) => RenderContext> {
  const byName = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  for (const row of await users.listByRealm(q, realm.id)) {
    const u = { id: row.id, full_name: row.full_name, email: row.email };
    byId.set(u.id, u);
    const key = u.full_name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), u]);
  }
  const allStreams = await streams.listByRealm(q, realm.id);
  const groups = await mentionableGroups(q, realm.id, featureLevel >= 333);
  const emoji = new Map((await realmEmoji.listByRealm(q, realm.id)).filter((e) => e.deactivated === 0 && e.file_name !== null).map((e) => [e.name, presentRealmEmoji(e).source_url]));
  const linkifiers = await realmLinkifiers(q, realm.id);
  const defaultCodeBlockLanguage = realmSettings(realm.settings).default_code_block_language;
  const contexts = new Map<number, RenderContext>();
  return (authorId) => {
    let rctx = contexts.get(authorId);
    if (!rctx) {
      const linkable = new Map<string, { id: number; name: string }>();
      for (const st of allStreams) {
        if (st.invite_only === 0 || privateMembers.get(st.id)?.has(authorId)) linkable.set(st.name_lower, { id: st.id, name: st.name });
      }
      rctx = {
        userByName: (name) => byName.get(name.toLowerCase()) ?? [],
        userById: (id) => byId.get(id),
        groupByName: (name) => groups.get(name.toLowerCase()),
        streamByName: (name) => linkable.get(name.toLowerCase()),
        ...(emoji.size > 0 ? { customEmojiUrl: (name: string) => emoji.get(name) } : {}),
        linkifiers,
        defaultCodeBlockLanguage,
        featureLevel,
      };
      contexts.set(authorId, rctx);
    }
    return rctx;
  };
}
