/**
 * Slack's mrkdwn to Zulip markdown, step for step as Zulip's slack_message_conversion.py:
 * bold, strike and italic markers (only at word boundaries, as Slack applies them), the
 * workspace mentions as @**all**, channel links, person mentions, `<url|text>` links and
 * mailto links; then the HTML entities Slack escapes its text with (&amp; &lt; &gt;).
 */

export interface MarkupContext {
  people: ReadonlyMap<string, { id: number; fullName: string; name: string }>;
  channelNames: ReadonlyMap<string, string>;
}

export interface Converted {
  content: string;
  /** Zulip user ids mentioned by name, in order of appearance. */
  mentioned: number[];
  hasLink: boolean;
}

// A marker opens after punctuation, a space, a symbol or a line start, and closes before one
// of those or a line end; never next to itself, a backtick, @ or a backslash, nor inside
// brackets or quotes (closing ones before, opening ones after).
const formatting = (m: string) => new RegExp(
  `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)(${m})([^${m}]+)(${m})((?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$))`,
  'gmu',
);
const BOLD = formatting('\\*'), STRIKE = formatting('~'), ITALIC = formatting('_');

const LINK = /<(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.][a-z0-9]+)*)\.([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?>/g;
const MAILTO = /<((mailto:)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+))(\|)?([\p{L}\p{N}_.-]+@[\p{L}\p{N}_.-]+(\.[\p{L}\p{N}_]+)+)?>/gu;
const USER_MENTION = /<@([a-zA-Z0-9]+)(?:\|([a-zA-Z0-9._-]+))?>/g;
const CHANNEL_LINK = /<#([A-Z0-9]+)(?:\|([^>]*))?>/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

function convertFormatting(text: string): string {
  const apply = (t: string, re: RegExp, zulip: string) => t.replace(re, (_m, before: string, _o, inner: string) => `${before}${zulip}${inner}${zulip}`);
  return apply(apply(apply(text, BOLD, '**'), STRIKE, '~~'), ITALIC, '*');
}

export function convertSlackMarkup(text: string, ctx: MarkupContext): Converted {
  const mentioned: number[] = [];
  let hasLink = false;
  let t = convertFormatting(text);
  t = t.replaceAll('<!everyone>', '@**all**').replaceAll('<!channel>', '@**all**').replaceAll('<!here>', '@**all**');
  // Zulip's converter links a channel only when the label is the channel's name; a bare
  // `<#C1>` (newer exports) is linked by the id alone.
  t = t.replace(CHANNEL_LINK, (m, id: string, label: string | undefined) => {
    const name = ctx.channelNames.get(id);
    return name !== undefined && (label === undefined || label === name) ? `#**${name}**` : m;
  });
  t = t.replace(USER_MENTION, (m, id: string, shortName: string | undefined) => {
    const person = ctx.people.get(id);
    if (!person || (shortName !== undefined && shortName !== person.name)) return m;
    mentioned.push(person.id);
    return `@**${person.fullName}**`;
  });
  t = t.replace(LINK, (m) => {
    hasLink = true;
    const inner = m.slice(1, -1);
    const bar = inner.indexOf('|');
    return bar < 0 ? inner : `[${inner.slice(bar + 1)}](${inner.slice(0, bar)})`;
  });
  t = t.replace(MAILTO, (_m, target: string) => {
    hasLink = true;
    return target;
  });
  t = t.replace(/&(amp|lt|gt);/g, (e) => ENTITIES[e]!);
  return { content: t, mentioned, hasLink };
}
