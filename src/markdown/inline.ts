import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/empty-topic.js';
import type { MarkdownIt } from 'markdown-it';
import type { StateCore, StateInline } from 'markdown-it';
import type { RenderEnv } from './types.js';
import { emojiCodeForName } from '../emoji/index.js';
import { escapeHtml, emojiSpan, customEmojiImg, narrowHref } from './html.js';

/** Zulip's stream wildcards; `channel` is one from level 247. */
const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream']);
export const TOPIC_WILDCARD_LEVEL = 224;
export const CHANNEL_WILDCARD_LEVEL = 247;

/** Pushes finished HTML as one token; every piece of it was escaped by the rule that built it. */
function pushHtml(state: StateInline, html: string): void {
  const token = state.push('zulip_html', '', 0);
  token.content = html;
}

/** `@**Name**`, `@**Name|id**`, `@_**Name**` (silent), `@*group*`, `@_*group*`, wildcards. */
function mention(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  if (src.charCodeAt(pos) !== 0x40 /* @ */) return false;
  // Zulip only starts a mention at a word boundary.
  if (pos > 0 && /[\w@]/.test(src[pos - 1]!)) return false;
  pos += 1;
  const isSilent = src[pos] === '_';
  if (isSilent) pos += 1;
  const env = state.env as unknown as RenderEnv;
  if (src.startsWith('**', pos)) {
    const end = src.indexOf('**', pos + 2);
    if (end < 0) return false;
    const body = src.slice(pos + 2, end);
    if (body === '' || body.includes('\n')) return false;
    // As Zulip: quoting someone's words does not notify the people they mentioned.
    const html = renderUserMention(env, body, isSilent || env.quoted > 0);
    if (html === undefined) return false;
    if (!silent) pushHtml(state, html);
    state.pos = end + 2;
    return true;
  }
  if (src[pos] === '*') {
    const end = src.indexOf('*', pos + 1);
    if (end < 0) return false;
    const name = src.slice(pos + 1, end);
    const group = name && !name.includes('\n') ? env.rctx.groupByName(name) : undefined;
    // System groups (level 333) may be mentioned silently only: no one is notified.
    if (!group || (group.is_system_group === true && !isSilent)) return false;
    if (!silent) {
      if (!isSilent) {
        env.result.mentionedGroupIds.add(group.id);
        // As Zulip's render_incoming_message: a group mention is a mention of each member.
        for (const id of group.members ?? []) env.result.mentionedUserIds.add(id);
      }
      pushHtml(state, `<span class="user-group-mention${isSilent ? ' silent' : ''}" data-user-group-id="${group.id}">${isSilent ? '' : '@'}${escapeHtml(group.name)}</span>`);
    }
    state.pos = end + 1;
    return true;
  }
  return false;
}

function renderUserMention(env: RenderEnv, body: string, isSilent: boolean): string | undefined {
  const at = isSilent ? '' : '@';
  const cls = `user-mention${isSilent ? ' silent' : ''}`;
  const level = env.rctx.featureLevel ?? 122;
  if (STREAM_WILDCARDS.has(body) || (body === 'channel' && level >= CHANNEL_WILDCARD_LEVEL)) {
    if (!isSilent) env.result.wildcardMentioned = true;
    // Zulip's UserMentionPattern marks stream wildcards apart from 247 on.
    const wildcardCls = level >= CHANNEL_WILDCARD_LEVEL ? `user-mention channel-wildcard-mention${isSilent ? ' silent' : ''}` : cls;
    return `<span class="${wildcardCls}" data-user-id="*">${at}${body}</span>`;
  }
  if (body === 'topic' && level >= TOPIC_WILDCARD_LEVEL) {
    if (!isSilent) env.result.topicWildcardMentioned = true;
    // As Zulip: no data-user-id on a topic wildcard.
    return `<span class="topic-mention${isSilent ? ' silent' : ''}">${at}${body}</span>`;
  }
  let user;
  const bar = body.lastIndexOf('|');
  if (bar >= 0 && /^\d+$/.test(body.slice(bar + 1))) {
    const name = body.slice(0, bar);
    user = env.rctx.userById(Number(body.slice(bar + 1)));
    if (user && name !== '' && name.toLowerCase() !== user.full_name.toLowerCase()) user = undefined;
  } else {
    const matches = env.rctx.userByName(body);
    // Two people with one name need the |id form; Zulip renders neither.
    user = matches.length === 1 ? matches[0] : undefined;
  }
  if (!user) return undefined;
  if (!isSilent) env.result.mentionedUserIds.add(user.id);
  return `<span class="${cls}" data-user-id="${user.id}">${at}${escapeHtml(user.full_name)}</span>`;
}

const MESSAGE_LINK_LEVEL = 319;
/** Level 346: `#**stream>**` links the empty topic, shown by its display name. */
const EMPTY_TOPIC_LINK_LEVEL = 346;
/** Level 347: topic links carry `/with/<newest message id>`. */
const TOPIC_LINK_WITH_LEVEL = 347;

/** `#**stream**`, `#**stream>topic**` and (level 319) `#**stream>topic@message id**`. */
function streamLink(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (!src.startsWith('#**', pos)) return false;
  const end = src.indexOf('**', pos + 3);
  if (end < 0) return false;
  const body = src.slice(pos + 3, end);
  if (body === '' || body.includes('\n')) return false;
  const env = state.env as unknown as RenderEnv;
  const gt = body.indexOf('>');
  const streamName = gt >= 0 ? body.slice(0, gt) : body;
  const stream = env.rctx.streamByName(streamName);
  if (!stream) return false;
  const level = env.rctx.featureLevel ?? 122;
  // The empty topic may be linked from level 346 (`#**stream>**`); before, that is no link.
  if (gt >= 0 && gt === body.length - 1 && level < EMPTY_TOPIC_LINK_LEVEL) return false;
  // Level 319: `#**stream>topic@id**` links one message (Zulip's StreamTopicMessagePattern: the last `@digits`).
  const near = gt >= 0 && level >= MESSAGE_LINK_LEVEL ? /^([\s\S]*)@(\d+)$/.exec(body.slice(gt + 1)) : null;
  if (!silent) {
    if (near) {
      const topic = near[1]!;
      pushHtml(state, `<a class="message-link" href="${narrowHref(stream.id, stream.name, topic)}/near/${near[2]}">#${escapeHtml(stream.name)} &gt; ${escapeHtml(topic)} @ 💬</a>`);
    } else if (gt >= 0) {
      const topic = body.slice(gt + 1);
      // Level 347: the link follows the topic's moves with `with` its newest message.
      const latest = level >= TOPIC_LINK_WITH_LEVEL ? env.rctx.latestInTopic?.(stream.id, topic.toLowerCase()) : undefined;
      const href = narrowHref(stream.id, stream.name, topic) + (latest !== undefined ? `/with/${latest}` : '');
      const text = topic === '' ? `<em>${EMPTY_TOPIC_DISPLAY_NAME}</em>` : escapeHtml(topic);
      pushHtml(state, `<a class="stream-topic" data-stream-id="${stream.id}" href="${href}">#${escapeHtml(stream.name)} &gt; ${text}</a>`);
    } else {
      pushHtml(state, `<a class="stream" data-stream-id="${stream.id}" href="${narrowHref(stream.id, stream.name)}">#${escapeHtml(stream.name)}</a>`);
    }
  }
  state.pos = end + 2;
  return true;
}

/** `:name:` for a known emoji name: the organization's custom emoji first, as Zulip. */
function emojiName(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const pos = state.pos;
  if (src.charCodeAt(pos) !== 0x3a /* : */) return false;
  const m = /^:([a-z0-9_+.-]+):/i.exec(src.slice(pos, pos + 80));
  if (!m) return false;
  const custom = (state.env as unknown as RenderEnv).rctx.customEmojiUrl?.(m[1]!);
  if (custom !== undefined) {
    if (!silent) pushHtml(state, customEmojiImg(m[1]!, custom));
    state.pos = pos + m[0].length;
    return true;
  }
  const code = emojiCodeForName(m[1]!);
  if (!code) return false;
  if (!silent) pushHtml(state, emojiSpan(m[1]!, code));
  state.pos = pos + m[0].length;
  return true;
}

/**
 * markdown-it's own inline step, which parses each block's text, plus a count of the `>`
 * quotes around it, so that the mention rule can tell quoted text apart.
 */
function inlineWithQuotes(state: StateCore): void {
  const env = state.env as unknown as RenderEnv;
  const outer = env.quoted;
  for (const token of state.tokens) {
    if (token.type === 'blockquote_open') env.quoted += 1;
    else if (token.type === 'blockquote_close') env.quoted -= 1;
    else if (token.type === 'inline') state.md.inline.parse(token.content, state.md, state.env, token.children ?? (token.children = []));
  }
  env.quoted = outer;
}

export function inlineRules(md: MarkdownIt): void {
  md.core.ruler.at('inline', inlineWithQuotes);
  md.inline.ruler.before('emphasis', 'zulip_mention', mention);
  md.inline.ruler.before('emphasis', 'zulip_stream', streamLink);
  md.inline.ruler.before('emphasis', 'zulip_emoji', emojiName);
  md.renderer.rules.zulip_html = (tokens, idx) => tokens[idx]!.content;
}
