/**
 * The texts Zulip's outgoing-webhook code posts when a call fails (fail_with_message in the
 * conversation, notify_bot_owner to the bot's owner), and the message link they carry.
 * Pure: no I/O.
 */
import { narrowHref } from '../markdown/html.js';

/** Zulip's near_message_url: a stream message by stream and topic, a private one by its members' ids. */
export function nearMessageUrl(realmUri: string, m: { id: number; type: string; stream_id?: number; subject?: string; display_recipient: string | Array<{ id: number }> }): string {
  if (m.type === 'stream') return `${realmUri}${narrowHref(Number(m.stream_id), String(m.display_recipient), String(m.subject))}/near/${m.id}`;
  const ids = (m.display_recipient as Array<{ id: number }>).map((u) => u.id).join(',');
  return `${realmUri}/#narrow/pm-with/${ids}-pm/near/${m.id}`;
}

/** In the conversation: Zulip's fail_with_message. */
export const failureReply = (failure: string) => `Failure! ${failure}`;

export const BOT_UNAVAILABLE = 'Bot is unavailable';
export const connectionFailure = () => 'A connection error occurred. Is my bot server down?';
export const timeoutFailure = (timeoutMs: number) => `Request timed out after ${timeoutMs / 1000} seconds.`;
export const statusFailure = (status: number) => `Third party responded with ${status}`;
export const exceptionFailure = (type: string, command: string) =>
  `An exception of type *${type}* occurred for message \`${command}\`! See the server logs for more information.`;
/** Parley's own (Zulip's queue is unbounded): the delivery queue was full. */
export const DROPPED = 'The server had too many outgoing webhook calls waiting, so this one was dropped.';
export const replyRejected = (error: string) =>
  `The outgoing webhook server attempted to send a message in Parley, but that request resulted in the following error:\n> ${error}`;

/**
 * Python's repr() of the answer's body, as Zulip quotes it: `bytes` (b'...') for a body
 * read raw, `str` ('...') for one read as text. Non-ASCII is escaped only in bytes.
 */
export function pyRepr(s: string, asBytes: boolean): string {
  const units = asBytes ? [...Buffer.from(s, 'utf8')].map((b) => String.fromCharCode(b)) : [...s];
  const quote = units.includes("'") && !units.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of units) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f || (asBytes && c > 0x7e)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${asBytes ? 'b' : ''}${quote}${out}${quote}`;
}

export interface OwnerNotice {
  messageUrl: string;
  botFullName: string;
  exception?: { type: string; text: string };
  failure?: string;
  status?: number;
  /** The answer's body, already quoted with pyRepr. */
  response?: string;
}

/** Zulip's notify_bot_owner: a private message from the bot to its owner. */
export function ownerNotice(n: OwnerNotice): string {
  let text = `[A message](${n.messageUrl}) to your bot @_**${n.botFullName}** triggered an outgoing webhook.`;
  if (n.exception) {
    text += `\nWhen trying to send a request to the webhook service, an exception of type ${n.exception.type} occurred:\n\`\`\`\n${n.exception.text}\n\`\`\``;
  } else if (n.failure) {
    text += `\n${n.failure}`;
  } else if (n.status === 407) {
    text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  } else if (n.status) {
    text += `\nThe webhook got a response with status code *${n.status}*.`;
  }
  // Zulip tests the body's truthiness: an empty one is not shown.
  if (n.response !== undefined) text += `\nThe response contains the following payload:\n\`\`\`\n${n.response}\n\`\`\``;
  return text;
}
