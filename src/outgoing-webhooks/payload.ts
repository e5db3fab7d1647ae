/**
 * What an outgoing-webhook bot's service is sent and what its answer means, after Zulip's
 * zerver/lib/outgoing_webhook.py (GenericOutgoingWebhookService, SlackOutgoingWebhookService,
 * process_success_response). Pure: no I/O.
 */
import type { WireMessage } from '../presenters/message.js';
import type { Trigger } from './types.js';

/** Zulip's Service interfaces. */
export const GENERIC_INTERFACE = 1;
export const SLACK_INTERFACE = 2;

export interface ServiceCall {
  body: string;
  contentType: string;
}

export interface CallInput {
  bot: { email: string; full_name: string; id: number };
  token: string;
  trigger: Trigger;
  message: WireMessage;
}

/** Zulip's generic payload: JSON with the message (raw markdown) and the service's token. */
export function genericCall(c: CallInput): ServiceCall {
  return {
    contentType: 'application/json',
    body: JSON.stringify({
      data: c.message.content,
      message: c.message,
      bot_email: c.bot.email,
      bot_full_name: c.bot.full_name,
      token: c.token,
      trigger: c.trigger,
    }),
  };
}

/** Zulip's failure text when a Slack-format bot is messaged privately (no call is made). */
export const SLACK_NO_PRIVATE = "Slack outgoing webhooks don't support private messages.";

/** Zulip's Slack-format payload: form fields as Slack's legacy outgoing webhooks sent them. */
export function slackCall(c: CallInput): ServiceCall {
  const m = c.message;
  const email = String(m.sender_email);
  const fields: Array<[string, string]> = [
    ['token', c.token],
    ['team_id', String(m.sender_realm_str)],
    // Zulip's email_to_domain: the sender's address after its last '@', lowercased.
    ['team_domain', email.slice(email.lastIndexOf('@') + 1).toLowerCase()],
    ['channel_id', String(m.stream_id)],
    ['channel_name', String(m.display_recipient)],
    ['timestamp', String(m.timestamp)],
    ['user_id', String(m.sender_id)],
    ['user_name', String(m.sender_full_name)],
    ['text', String(m.content)],
    ['trigger_word', c.trigger],
    ['service_id', String(c.bot.id)],
  ];
  return { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() };
}

/** What a 2xx answer asks for: nothing, a reply, or a failure to report (Zulip's exact texts). */
export type Answer = { kind: 'none' } | { kind: 'reply'; content: string } | { kind: 'invalid'; error: string };

/** Python's str() of a JSON value, as Zulip applies it to `content` and `response_string`. */
function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}

/** Zulip's process_success_response with the interface's process_success. */
export function readAnswer(iface: number, text: string): Answer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', error: 'Invalid JSON in response' };
  }
  // zulip_botserver before 2021-05 answered json.dumps("") for "no response required".
  if (json === '') return { kind: 'none' };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { kind: 'invalid', error: 'Invalid response format' };
  const o = json as Record<string, unknown>;
  let content: string | undefined;
  if (iface === SLACK_INTERFACE) {
    // Taken as is, not through str(): a null `text` is no reply.
    if ('text' in o && o.text !== null && o.text !== undefined) content = pyStr(o.text);
  } else {
    if (o.response_not_required) return { kind: 'none' };
    // response_string is deprecated but still honoured, before content. widget_content
    // (Zulip's zform widgets) is not supported here: the content alone is posted.
    if ('response_string' in o) content = pyStr(o.response_string);
    else if ('content' in o) content = pyStr(o.content);
  }
  if (content === undefined || content.trim() === '') return { kind: 'none' };
  return { kind: 'reply', content };
}
