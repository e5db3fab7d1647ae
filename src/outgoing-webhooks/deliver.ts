/**
 * One delivery: call each of the bot's services with the message, then act on the answer
 * as Zulip's do_rest_call does (a reply posted as the bot; failures told in the
 * conversation and to the bot's owner; a timeout or a refused connection tried again, up
 * to Zulip's MAX_REQUEST_RETRIES). Runs in the delivery pool, never in a sender's request.
 */
import type { AppContext } from '../context.js';
import type { BotServiceRow, UserRow } from '../rows.js';
import type { Again } from './pool.js';
import type { OutgoingWebhookJob, PostAsBot } from './types.js';
import { ApiError } from '../errors.js';
import { outgoingServiceBot } from '../reads/bots.js';
import { realmUri } from '../lib/realm-host.js';
import { SPEC_FEATURE_LEVEL, zulipVersionOf } from '../lib/version.js';
import { SLACK_INTERFACE, SLACK_NO_PRIVATE, genericCall, readAnswer, slackCall, type ServiceCall } from './payload.js';
import {
  BOT_UNAVAILABLE, DROPPED, connectionFailure, exceptionFailure, failureReply, nearMessageUrl, ownerNotice, pyRepr,
  replyRejected, statusFailure, timeoutFailure, type OwnerNotice,
} from './notices.js';

/** Zulip's MAX_REQUEST_RETRIES: a call is tried once and then up to three more times. */
export const MAX_REQUEST_RETRIES = 3;

/** The client name of what a bot posts through this path (Zulip's). */
export const RESPONSE_CLIENT = 'OutgoingWebhookResponse';

// Zulip's user agent names its version; bots do not branch on it, so it stays the spec's.
const USER_AGENT = `ZulipOutgoingWebhook/${zulipVersionOf(SPEC_FEATURE_LEVEL).version}`;

// undici's codes for "could not reach the service": Zulip's requests ConnectionError.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EPIPE', 'ECONNABORTED',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

type CallResult =
  | { kind: 'answer'; status: number; text: string }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  | { kind: 'exception'; type: string; text: string }
  | { kind: 'stopped' };

/** The HTTP exchange, answer body included, within the timeout; never throws. */
async function call(url: string, req: ServiceCall, timeoutMs: number, stop: AbortSignal): Promise<CallResult> {
  if (stop.aborted) return { kind: 'stopped' };
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new Error('timed out'));
  }, timeoutMs);
  const onStop = () => ctl.abort(new Error('shutting down'));
  stop.addEventListener('abort', onStop, { once: true });
  try {
    const res = await fetch(url, {
      method: 'POST', body: req.body, signal: ctl.signal,
      headers: { 'content-type': req.contentType, 'user-agent': USER_AGENT },
    });
    return { kind: 'answer', status: res.status, text: await res.text() };
  } catch (err) {
    if (stop.aborted) return { kind: 'stopped' };
    if (timedOut) return { kind: 'timeout' };
    const cause = (err as { cause?: { code?: string; name?: string; message?: string } }).cause;
    const code = cause?.code ?? '';
    if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
    if (CONNECTION_CODES.has(code)) return { kind: 'connection' };
    const e = err as Error;
    return { kind: 'exception', type: code || cause?.name || e.name || 'Error', text: cause?.message ?? e.message ?? String(err) };
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

interface Delivery {
  ctx: AppContext;
  post: PostAsBot;
  job: OutgoingWebhookJob;
  bot: UserRow;
}

/** Posts as the bot into the conversation the message came from (Zulip's send_response_message). */
async function postInConversation(d: Delivery, content: string): Promise<void> {
  const m = d.job.message;
  const to = m.type === 'stream'
    ? { kind: 'stream' as const, id: Number(m.stream_id) }
    : { kind: 'private' as const, ids: (m.display_recipient as Array<{ id: number }>).map((u) => u.id) };
  // Zulip skips the stream access check here: the bot answers where it was mentioned.
  await d.post(d.job.realm, d.bot, { to, topic: String(m.subject), content, client: RESPONSE_CLIENT, internal: true });
}

/** A failure's report in the conversation; like Zulip, one that cannot be posted (the stream is gone) is let go. */
async function failInConversation(d: Delivery, failure: string): Promise<void> {
  try {
    await postInConversation(d, failureReply(failure));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    d.ctx.log.info({ err: err.message, botId: d.bot.id }, 'outgoing webhook: could not post the failure in the conversation');
  }
}

/** Zulip's notify_bot_owner: a private message from the bot to its owner. */
async function notifyOwner(d: Delivery, notice: Omit<OwnerNotice, 'messageUrl' | 'botFullName'>): Promise<void> {
  if (d.bot.bot_owner_id === null) return;
  const content = ownerNotice({ ...notice, messageUrl: nearMessageUrl(realmUri(d.ctx.config, d.job.realm), d.job.message), botFullName: d.bot.full_name });
  try {
    await d.post(d.job.realm, d.bot, { to: { kind: 'private', ids: [d.bot.bot_owner_id] }, content, client: RESPONSE_CLIENT, internal: true });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    d.ctx.log.info({ err: err.message, botId: d.bot.id }, 'outgoing webhook: could not tell the bot owner');
  }
}

/** The answer of a 2xx call: a reply, nothing, or (bad answer or unpostable reply) a failure reported. */
async function onSuccess(d: Delivery, service: BotServiceRow, text: string): Promise<void> {
  const answer = readAnswer(service.interface, text);
  if (answer.kind === 'none') return;
  let error: string;
  if (answer.kind === 'invalid') {
    error = answer.error;
  } else {
    try {
      await postInConversation(d, answer.content);
      return;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error = err.message;
    }
  }
  d.ctx.log.info({ botId: d.bot.id, error }, 'outgoing webhook: the answer could not be posted');
  await failInConversation(d, error);
  await notifyOwner(d, { failure: replyRejected(error), response: text === '' ? undefined : pyRepr(text, false) });
}

/** Calls one service; answers the failure to retry with, if the call should be tried again. */
async function callService(d: Delivery, service: BotServiceRow, stop: AbortSignal): Promise<string | undefined> {
  const { ctx, job } = d;
  if (service.interface === SLACK_INTERFACE && job.message.type === 'private') {
    await failInConversation(d, SLACK_NO_PRIVATE);
    return undefined;
  }
  const input = { bot: d.bot, token: service.token, trigger: job.trigger, message: job.message };
  const req = service.interface === SLACK_INTERFACE ? slackCall(input) : genericCall(input);
  const started = performance.now();
  const r = await call(service.base_url, req, ctx.config.outgoingWebhookTimeoutMs, stop);
  ctx.log.info({ botId: d.bot.id, service: service.name, result: r.kind, ms: Math.round(performance.now() - started) }, 'outgoing webhook call');
  switch (r.kind) {
    case 'stopped':
      return undefined;
    case 'timeout':
      return timeoutFailure(ctx.config.outgoingWebhookTimeoutMs);
    case 'connection':
      return connectionFailure();
    case 'exception':
      ctx.log.warn({ botId: d.bot.id, type: r.type, error: r.text }, 'outgoing webhook call failed');
      await failInConversation(d, exceptionFailure(r.type, String(job.message.content)));
      await notifyOwner(d, { exception: { type: r.type, text: r.text } });
      return undefined;
    case 'answer':
      if (r.status >= 200 && r.status < 300) {
        await onSuccess(d, service, r.text);
      } else {
        ctx.log.warn({ botId: d.bot.id, status: r.status }, 'outgoing webhook answered with an error status');
        await failInConversation(d, statusFailure(r.status));
        await notifyOwner(d, { status: r.status, response: r.text === '' ? undefined : pyRepr(r.text, true) });
      }
      return undefined;
  }
}

/** Runs one job (the pool's RunJob): every service of the bot, or the one being retried. */
export async function deliver(ctx: AppContext, post: PostAsBot, job: OutgoingWebhookJob, stop: AbortSignal): Promise<Array<Again<OutgoingWebhookJob>>> {
  const found = await outgoingServiceBot(ctx.store.db, job.realm.id, job.botId);
  // A bot deactivated (or removed) since the message was sent is not called any more.
  if (!found) return [];
  const d: Delivery = { ctx, post, job, bot: found.bot };
  const again: Array<Again<OutgoingWebhookJob>> = [];
  for (const service of found.services) {
    if (job.serviceId !== undefined && service.id !== job.serviceId) continue;
    const retryWith = await callService(d, service, stop);
    if (retryWith === undefined || stop.aborted) continue;
    const failedTries = job.failedTries + 1;
    if (failedTries <= MAX_REQUEST_RETRIES) {
      again.push({ job: { ...job, serviceId: service.id, failedTries }, delayMs: ctx.config.outgoingWebhookRetryDelayMs * 2 ** (failedTries - 1) });
    } else {
      ctx.log.warn({ botId: d.bot.id, service: service.name }, 'outgoing webhook: maximum retries exceeded');
      await failInConversation(d, BOT_UNAVAILABLE);
      await notifyOwner(d, { failure: retryWith });
    }
  }
  return again;
}

/** When the queue had no room for a job: the owner hears of it, as of any other failed delivery. */
export async function notifyDropped(ctx: AppContext, post: PostAsBot, job: OutgoingWebhookJob): Promise<void> {
  const found = await outgoingServiceBot(ctx.store.db, job.realm.id, job.botId);
  if (found) await notifyOwner({ ctx, post, job, bot: found.bot }, { failure: DROPPED });
}
