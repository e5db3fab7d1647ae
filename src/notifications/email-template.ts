/**
 * The missed-message email's three parts, each from one template over one typed context:
 * Zulip's templates/zerver/emails/missed_message.{subject.txt,txt,html}. Every value is
 * escaped where it lands in HTML except the message HTML, which email-content.ts made safe.
 */
import { escapeHtml as esc } from '../markdown/html.js';

export interface MessageBlock {
  plain: string;
  /** Mail-safe HTML (email-content.ts). */
  html: string;
}

/** Consecutive messages of one sender: Zulip's sender block. */
export interface SenderBlock {
  sender: string;
  content: MessageBlock[];
}

export type ConversationHeader =
  | { kind: 'stream'; streamName: string; streamUrl: string; topic: string; topicUrl: string }
  | { kind: 'private'; text: string; url: string };

export interface MissedMessageEmail {
  realmName: string;
  realmUrl: string;
  narrowUrl: string;
  header: ConversationHeader;
  /** Empty when content is hidden. */
  senders: SenderBlock[];
  showContent: boolean;
  contentHiddenBy: 'realm' | 'user' | null;
  /** "You are receiving this because ...", or null (a direct message says nothing). */
  reason: string | null;
  subject: {
    kind: 'group_pm' | 'private_message' | 'stream';
    groupDisplayName: string;
    senderStr: string;
    channelName: string;
    topicName: string;
    topicResolved: boolean;
    /** Zulip's realm_name_in_email_notifications_policy, decided. */
    includeRealmName: boolean;
  };
}

export function renderSubject(c: MissedMessageEmail): string {
  const s = c.subject;
  let subject: string;
  if (!c.showContent) subject = 'New messages';
  else if (s.kind === 'group_pm') subject = `Group DMs with ${s.groupDisplayName}`;
  else if (s.kind === 'private_message') subject = `DMs with ${s.senderStr}`;
  else subject = `${s.topicResolved ? '[resolved] ' : ''}#${s.channelName} > ${s.topicName}`;
  return s.includeRealmName ? `${subject} [${c.realmName}]` : subject;
}

const settingsUrl = (c: MissedMessageEmail) => `${c.realmUrl}/#settings/notifications`;
const realmHelp = (c: MissedMessageEmail) => `${c.realmUrl}/help/hide-message-content-in-emails`;
const userHelp = (c: MissedMessageEmail) => `${c.realmUrl}/help/email-notifications#hide-message-content`;

export function renderText(c: MissedMessageEmail): string {
  const parts: string[] = [];
  if (c.showContent) {
    for (const block of c.senders) for (const m of block.content) parts.push(m.plain);
  } else if (c.contentHiddenBy === 'realm') {
    parts.push(`This email does not include message content because your organization hides message content in email notifications. See ${realmHelp(c)} for more details.`);
  } else {
    parts.push(`This email does not include message content because you have chosen to hide message content in email notifications. See ${userHelp(c)} for more details.`);
  }
  parts.push(c.reason === null ? '--' : `--\n${c.reason}`);
  if (c.showContent) {
    parts.push(`Reply in ${c.realmName}:`, c.narrowUrl, 'Do not reply to this email. This server is not configured to accept incoming emails.');
  } else {
    parts.push(`View or reply in ${c.realmName}:`, c.narrowUrl);
  }
  parts.push('Manage email preferences:', settingsUrl(c));
  return `${parts.join('\n\n')}\n`;
}

function headerHtml(h: ConversationHeader): string {
  if (h.kind === 'stream') {
    return `<a href="${esc(h.streamUrl)}">#${esc(h.streamName)}</a> &gt; <a href="${esc(h.topicUrl)}">${esc(h.topic)}</a>`;
  }
  return `<a href="${esc(h.url)}">${esc(h.text)}</a>`;
}

export function renderHtml(c: MissedMessageEmail): string {
  const body = c.showContent
    ? c.senders.map((b) => `<div class="missed_message">\n${b.content.map((m) => m.html).join('\n')}\n</div>`).join('\n')
    : `<div class="missed_message no-content-explanation">${c.contentHiddenBy === 'realm'
      ? `This email does not include message content because your organization <a href="${esc(realmHelp(c))}">hides message content</a> in email notifications.`
      : `This email does not include message content because you have chosen to <a href="${esc(userHelp(c))}">hide message content</a> in email notifications.`}</div>`;
  const reply = c.showContent
    ? `<a href="${esc(c.narrowUrl)}">Reply in ${esc(c.realmName)}</a>, or <a href="${esc(settingsUrl(c))}">manage email preferences</a>.<br />
<br />
Do not reply to this email. This server is not configured to accept incoming emails.`
    : `<a href="${esc(c.narrowUrl)}">View or reply in ${esc(c.realmName)}</a>, or <a href="${esc(settingsUrl(c))}">manage email preferences</a>.`;
  return `<!DOCTYPE html>
<html>
<head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /></head>
<body style="font-family: 'Helvetica Neue', Helvetica, Arial, sans-serif; font-size: 14px;">
<div class="recipient_header" style="font-weight: bold; padding: 4px 0;">${headerHtml(c.header)}</div>
${body}
<div class="email-preferences" style="color: #666; font-size: 12px; margin-top: 16px;">
&mdash;<br />
${c.reason === null ? '' : `${esc(c.reason)}<br />\n`}${reply}
</div>
</body>
</html>
`;
}
