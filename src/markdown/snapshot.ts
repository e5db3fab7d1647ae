import type { Linkifier, RenderContext, RenderUser } from './types.js';

type Group = NonNullable<ReturnType<RenderContext['groupByName']>>;
type Stream = NonNullable<ReturnType<RenderContext['streamByName']>>;

/**
 * A RenderContext as plain data, for a render on another thread (functions do not cross
 * to a worker, and the realm's whole user list should not either). It holds the answers
 * to every lookup the renderer can make for one content: the scan below finds each place
 * a mention, group mention, stream link or `:emoji:` rule would look something up, with
 * the same delimiters the rules in inline.ts use, and asks the real context there.
 */
export interface ContextSnapshot {
  usersByName: Array<[string, RenderUser[]]>;
  usersById: RenderUser[];
  groups: Array<[string, Group]>;
  streams: Array<[string, Stream]>;
  emoji: Array<[string, string]> | null;
  linkifiers: Linkifier[];
  defaultCodeBlockLanguage: string | null;
  featureLevel: number | null;
  uploadedImages: Array<[string, { width: number; height: number; contentType?: string | undefined }]> | null;
  /** Level 347's topic-link targets, keyed by topicKey(); null: none asked for. */
  topicLatest?: Array<[string, number]> | null;
}

/** The key of a linked topic in a snapshot: its stream and lowercased name. */
const topicKey = (streamId: number, topicLower: string) => `${streamId}\u0000${topicLower}`;

/**
 * How far past its opening a mention's or link's closing delimiter is looked for. Names
 * are shorter (users 100, streams 60 characters): a longer body names nothing, and the
 * bound keeps the scan linear on text full of unclosed `@**`.
 */
const WINDOW = 256;

function closing(src: string, from: number, delimiter: string): number {
  const at = src.slice(from, from + WINDOW + delimiter.length).indexOf(delimiter);
  return at < 0 ? -1 : from + at;
}

export function snapshotContext(content: string, rctx: RenderContext): ContextSnapshot {
  const names = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  const groups = new Map<string, Group>();
  const streams = new Map<string, Stream>();
  const topics = new Map<string, number>();
  for (let at = content.indexOf('@'); at >= 0; at = content.indexOf('@', at + 1)) {
    let pos = at + 1;
    if (content[pos] === '_') pos += 1;
    if (content.startsWith('**', pos)) {
      const end = closing(content, pos + 2, '**');
      const body = end < 0 ? '' : content.slice(pos + 2, end);
      if (body === '' || body.includes('\n')) continue;
      const bar = body.lastIndexOf('|');
      if (bar >= 0 && /^\d+$/.test(body.slice(bar + 1))) {
        const user = rctx.userById(Number(body.slice(bar + 1)));
        if (user) byId.set(user.id, user);
      } else if (!names.has(body)) {
        names.set(body, rctx.userByName(body));
      }
    } else if (content[pos] === '*') {
      const end = closing(content, pos + 1, '*');
      const name = end < 0 ? '' : content.slice(pos + 1, end);
      const group = name && !name.includes('\n') ? rctx.groupByName(name) : undefined;
      if (group) groups.set(name, group);
    }
  }
  for (let at = content.indexOf('#**'); at >= 0; at = content.indexOf('#**', at + 1)) {
    // The rule looks up what precedes the first `>` of the link's body.
    const rest = content.slice(at + 3, at + 3 + WINDOW);
    const stop = rest.search(/>|\*\*|\n/);
    const name = stop < 0 ? '' : rest.slice(0, stop);
    const stream = name ? rctx.streamByName(name) : undefined;
    if (stream) streams.set(name, stream);
    // A topic link's `with` target (level 347): the body after the `>`, up to the closing `**`.
    if (stream && rctx.latestInTopic && rest[stop] === '>') {
      const end = content.indexOf('**', at + 3);
      const topicLower = end < 0 ? undefined : content.slice(at + 3 + stop + 1, end).toLowerCase();
      const latest = topicLower === undefined || topicLower.includes('\n') ? undefined : rctx.latestInTopic(stream.id, topicLower);
      if (latest !== undefined) topics.set(topicKey(stream.id, topicLower!), latest);
    }
  }
  let emoji: Map<string, string> | null = null;
  if (rctx.customEmojiUrl) {
    emoji = new Map();
    // One step at a time, not match by match: `:a:b:` may be read as `:a:` or as `:b:`.
    const re = /:([a-z0-9_+.-]+):/giy;
    for (let at = content.indexOf(':'); at >= 0; at = content.indexOf(':', at + 1)) {
      re.lastIndex = at;
      const m = re.exec(content);
      if (!m || m[0].length > 80) continue;
      const url = rctx.customEmojiUrl(m[1]!);
      if (url !== undefined) emoji.set(m[1]!, url);
    }
  }
  return {
    usersByName: [...names], usersById: [...byId.values()], groups: [...groups], streams: [...streams],
    emoji: emoji && [...emoji], linkifiers: [...rctx.linkifiers], defaultCodeBlockLanguage: rctx.defaultCodeBlockLanguage ?? null,
    featureLevel: rctx.featureLevel ?? null,
    uploadedImages: rctx.uploadedImages ? [...rctx.uploadedImages] : null,
    topicLatest: topics.size > 0 ? [...topics] : null,
  };
}

/** Linkifiers are compiled once per list (see linkifiers.ts): the same list gets the same array. */
const linkifierLists = new Map<string, Linkifier[]>();

function stableLinkifiers(list: Linkifier[]): Linkifier[] {
  const key = JSON.stringify(list);
  const known = linkifierLists.get(key);
  if (known) return known;
  // A realm's list changes rarely; a few recent ones are kept.
  if (linkifierLists.size >= 16) linkifierLists.delete(linkifierLists.keys().next().value!);
  linkifierLists.set(key, list);
  return list;
}

export function contextOfSnapshot(s: ContextSnapshot): RenderContext {
  const names = new Map(s.usersByName);
  const byId = new Map(s.usersById.map((u) => [u.id, u]));
  const groups = new Map(s.groups);
  const streams = new Map(s.streams);
  const emoji = s.emoji && new Map(s.emoji);
  const topics = s.topicLatest ? new Map(s.topicLatest) : undefined;
  return {
    userByName: (name) => names.get(name) ?? [],
    userById: (id) => byId.get(id),
    groupByName: (name) => groups.get(name),
    streamByName: (name) => streams.get(name),
    linkifiers: stableLinkifiers(s.linkifiers),
    defaultCodeBlockLanguage: s.defaultCodeBlockLanguage,
    ...(s.featureLevel !== null ? { featureLevel: s.featureLevel } : {}),
    ...(s.uploadedImages ? { uploadedImages: new Map(s.uploadedImages) } : {}),
    ...(emoji ? { customEmojiUrl: (name: string) => emoji.get(name) } : {}),
    ...(topics ? { latestInTopic: (streamId: number, topicLower: string) => topics.get(topicKey(streamId, topicLower)) } : {}),
  };
}
