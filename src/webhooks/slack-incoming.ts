import type { Integration, WebhookMessage } from './types.js';
import type { Wild } from './wild.js';

/**
 * Slack-compatible incoming webhooks (Zulip's zerver/webhooks/slack_incoming): the payload is
 * a JSON body, or Slack's form field `payload` holding JSON. `text`, section blocks and
 * attachments (title with link, text) become the body; Slack's links and mrkdwn emphasis are
 * rewritten as Zulip markdown. The topic is the caller's, else the payload's channel, else
 * "(no topic)". An empty message posts nothing.
 */
function attachmentText(a: Wild): string {
  let out = '';
  if (a.has('title') && a.has('title_link')) out += `[${a.at('title').str()}](${a.at('title_link').str()})\n`;
  if (a.has('text')) out += a.at('text').str();
  return out;
}

function blockText(b: Wild): string {
  if (b.get('type').value !== 'section' || !b.has('text')) return '';
  return `\n\n${b.at('text').at('text').str()}`;
}

/** Slack's <url|label> links as markdown links. */
export const replaceLinks = (text: string) => text.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');

/** Slack's *bold* and _italic_ as Zulip's **bold** and *italic*. */
export function replaceFormatting(text: string): string {
  return text
    .replace(/([^\p{L}\p{N}_]|^)\*(?!\s)([^*\n]+)(?<!\s)\*(?=[^\p{L}\p{N}_]|$)/gu, '$1**$2**')
    .replace(/([^\p{L}\p{N}_]|^)_(?!\s)([^_\n]+)(?<!\s)_(?=[^\p{L}\p{N}_]|$)/gu, '$1*$2*');
}

export const slackIncoming: Integration = {
  displayName: 'SlackIncoming',
  listedName: 'Slack-compatible webhook',
  payload: 'slack-form',
  handle: ({ payload: p, param }): WebhookMessage | null => {
    let topic = param('topic');
    if (topic === undefined && p.has('channel')) topic = p.at('channel').str().replace(/^[@#]/, '');
    let body = '';
    for (const block of p.get('blocks').optList()) body += blockText(block);
    for (const attachment of p.get('attachments').optList()) body += attachmentText(attachment);
    if (body === '' && p.get('text').value != null) {
      body = p.at('text').str();
      const icon = p.get('icon_emoji');
      if (icon.value != null) body = `${icon.str()} ${body}`;
    }
    if (body === '') return null;
    return { topic: topic ?? '(no topic)', body: replaceFormatting(replaceLinks(body).trim()) };
  },
};
