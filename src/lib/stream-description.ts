import MarkdownIt from 'markdown-it';

/**
 * Stream descriptions are limited markdown: one paragraph of inline syntax (emphasis,
 * code, links), raw HTML escaped. Kept apart from the message renderer so that a
 * description never triggers mentions, previews or other message-only features.
 */
const md = new MarkdownIt('zero', { html: false, linkify: true, typographer: false })
  .enable(['emphasis', 'backticks', 'link', 'autolink', 'linkify', 'escape', 'strikethrough', 'entity', 'newline']);

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const href = String(token.attrGet('href') ?? '');
  // Zulip opens description links in a new tab; only web and mail links survive.
  if (!/^(https?:|mailto:)/i.test(href)) token.attrSet('href', '');
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return String(defaultLinkOpen(tokens, idx, options, env, self));
};

export function renderStreamDescription(text: string): string {
  if (text.trim() === '') return '';
  return `<p>${md.renderInline(text)}</p>`;
}
