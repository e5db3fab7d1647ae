import { escapeHtml } from '../markdown/html.js';
import type { DigestContext, HotConversation } from './digest-context.js';

/**
 * The digest's subject and its two parts, each from one template (after Zulip's
 * templates/zerver/emails/digest.*). In the HTML every interpolated value is escaped
 * except what is marked `Safe`: nested template output and message HTML already made safe
 * for mail (digest-html.ts).
 */
class Safe {
  constructor(readonly html: string) {}
}

type Value = string | number | Safe | Safe[] | false | null | undefined;

function html(strings: TemplateStringsArray, ...values: Value[]): Safe {
  let out = strings[0]!;
  values.forEach((v, i) => {
    const parts = Array.isArray(v) ? v : [v];
    for (const p of parts) out += p instanceof Safe ? p.html : p === false || p === null || p === undefined ? '' : escapeHtml(String(p));
    out += strings[i + 1]!;
  });
  return new Safe(out);
}

/** Zulip's display_list: "A, B and C", or the first `limit` and "and N others". */
export function displayList(values: string[], limit: number): string {
  if (values.length === 1) return values[0]!;
  if (values.length <= limit) return `${values.slice(0, -1).join(', ')} and ${values.at(-1)}`;
  const hidden = values.length - limit;
  return `${values.slice(0, limit).join(', ')} and ${hidden} other${hidden === 1 ? '' : 's'}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Zulip's digest.subject.txt. */
export const digestSubject = (c: DigestContext): string => `Zulip digest for ${c.realmName}`;

/** Zulip's summary when message content is hidden from email. */
function countsLine(c: DigestContext): string {
  const streams = plural(c.newStreams.length, `new ${c.streamWord}`);
  if (c.newMessagesCount > 0 && c.newStreams.length > 0) return `You have ${plural(c.newMessagesCount, 'new message')}, and there are ${streams} in ${c.realmName}.`;
  if (c.newMessagesCount > 0) return `You have ${plural(c.newMessagesCount, 'new message')} in ${c.realmName}.`;
  return `There are ${streams} in ${c.realmName}.`;
}

function hiddenNote(c: DigestContext): string {
  return c.contentDisabledByRealm
    ? 'This email does not include message content because your organization hides message content in email notifications.'
    : 'This email does not include message content because you have chosen to hide message content in email notifications.';
}

const more = (h: HotConversation) => (h.count > 0 ? `+ ${plural(h.count, 'more message')} by ${displayList(h.participants, 4)}.` : '');

const conversationHtml = (h: HotConversation) => html`
<div class="recipient_block" style="border: 1px solid #000; margin-bottom: 4px;">
  <div class="recipient_header" style="background-color: #9ecaff; border-bottom: 1px solid #000; font-weight: bold; padding: 2px;"><a href="${h.streamUrl}">${h.streamName}</a> &gt; <a href="${h.topicUrl}">${h.topic}</a></div>
  <div class="message_content" style="margin-left: 1px; margin-right: 2px;">${h.senders.map((s) => html`
    <div class="message_sender" style="font-weight: bold; padding-top: 1px;">${s.sender}</div>${s.messages.map((m) => html`
    <div class="message_content_block" style="padding-left: 6px;">${new Safe(m.html)}</div>`)}`)}
  </div>
</div>
${h.count > 0 ? html`<p>${more(h)}</p>` : ''}`;

export function digestHtml(c: DigestContext): string {
  const word = c.streamWord;
  const newStreams = c.newStreams.length === 0 ? '' : html`
<h2>New ${word}s</h2>
<p>${c.newStreams.length === 1 ? `A new ${word} was` : `Some new ${word}s were`} created:</p>
<p>${c.newStreams.map((s, i) => html`${i > 0 ? ', ' : ''}<a href="${s.url}">${s.name}</a>`)}.</p>`;
  const body = c.showContent
    ? html`${c.hotConversations.length === 0 ? '' : html`
<h2>Hot conversations</h2>
<p>Here are some of the hot conversations that have happened while you've been gone:</p>
${c.hotConversations.map(conversationHtml)}
<p><a href="${c.realmUri}">Catch up on the rest of these conversations.</a></p>`}${newStreams}`
    : html`<p>${countsLine(c)}</p>
<p>${hiddenNote(c)}</p>`;
  return html`<!DOCTYPE html>
<html><body style="font-family: 'Helvetica Neue', Helvetica, Arial, sans-serif; font-size: 14px;">
<p>Hello ${c.userName},</p>
<p>A lot has happened on Zulip while you've been away! <a href="${c.realmUri}">Visit Zulip</a> to catch up.</p>
${body}
<p><a href="${c.realmUri}">Click here to log in to Zulip and catch up.</a></p>
<p style="font-size: 12px; color: #666;"><a href="${c.settingsUrl}">Manage email preferences</a></p>
</body></html>
`.html;
}

export function digestText(c: DigestContext): string {
  const lines: string[] = [];
  if (c.showContent) {
    for (const h of c.hotConversations) {
      lines.push(`${h.streamName} > ${h.topic}`);
      for (const s of h.senders) {
        lines.push(`${s.sender}:`);
        for (const m of s.messages) lines.push(m.plain);
      }
      if (h.count > 0) lines.push(more(h));
      lines.push('');
    }
    if (c.newStreams.length > 0) {
      lines.push(`** New ${c.streamWord}s **`, `    ${c.newStreams.map((s) => `${s.name} (${s.url})`).join(', ')}.`, '');
    }
  } else {
    lines.push(countsLine(c), '', hiddenNote(c), '');
  }
  lines.push(`Log in to Zulip to catch up: ${c.realmUri}.`, '', '--', 'Manage email preferences:', '', c.settingsUrl, '');
  return lines.join('\n');
}
