/** What the renderer may look up; the caller supplies it (the send path caches it per realm). */
export interface RenderContext {
  userByName(fullName: string): RenderUser[];
  userById(id: number): RenderUser | undefined;
  /** With its members: a group mention mentions each of them. */
  groupByName(name: string): { id: number; name: string; members?: readonly number[]; is_system_group?: boolean } | undefined;
  /** Only streams the author may see: a link must not reveal a private stream's id. */
  streamByName(name: string): { id: number; name: string } | undefined;
  /** The organization's, in the order they apply; the same array while unchanged (compiled once per array). */
  linkifiers: readonly Linkifier[];
  /** The organization's default_code_block_language: fences that name none use it. */
  defaultCodeBlockLanguage?: string | null;
  /** The image URL of the organization's active custom emoji of that name (absent: none). */
  customEmojiUrl?(name: string): string | undefined;
  /**
   * The server's feature level (absent: 122): `@**topic**` is a mention from 224, `@**channel**`
   * from 247, which also gives channel wildcards Zulip's `channel-wildcard-mention` class.
   */
  featureLevel?: number;
  /**
   * The pixel size of the organization's uploaded images this content links, by path_id (the
   * part after /user_uploads/): they get an inline preview, with `data-original-dimensions` from 276
   * and `data-original-content-type` (the file's type) from 336.
   */
  uploadedImages?: ReadonlyMap<string, { width: number; height: number; contentType?: string | undefined }>;
  /**
   * Level 347: the newest message of a linked topic (by stream id and lowercased topic), the
   * `with` operand of its link; absent or undefined: the link has none.
   */
  latestInTopic?(streamId: number, topicLower: string): number | undefined;
}

export interface RenderUser { id: number; full_name: string; email: string }

/** Zulip's linkifier: an RE2 pattern, and a Python format string (`%(id)s`) for its URL. */
/** url_template (level 176) when set renders the links; else the URL format string, as Zulip 5. */
export interface Linkifier { id: number; pattern: string; url_format: string; url_template?: string | null }

export interface RenderResult {
  html: string;
  mentionedUserIds: Set<number>;
  /** @**all**, @**everyone**, @**stream**, @**channel** (not their silent forms): Zulip's mentions_stream_wildcard. */
  wildcardMentioned: boolean;
  /** @**topic** (not silent; level 224): Zulip's mentions_topic_wildcard. */
  topicWildcardMentioned: boolean;
  mentionedGroupIds: Set<number>;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  isMeMessage: boolean;
}

/** Collected while rendering; markdown-it passes it to every rule as `env`. */
export interface RenderEnv {
  rctx: RenderContext;
  result: RenderResult;
  depth: number;
  /** How many quotes (`>` or ```quote) enclose the text being parsed: mentions there are silent. */
  quoted: number;
  /** KaTeX's HTML for the message's math, kept out of the sanitiser (src/markdown/math.ts). */
  math?: string[];
}

export const EMPTY_CONTEXT: RenderContext = {
  userByName: () => [],
  userById: () => undefined,
  groupByName: () => undefined,
  streamByName: () => undefined,
  linkifiers: [],
};
