import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { ApiError, malformedJson, missingArgument, missingEventHeader } from '../errors.js';
import { users } from '../store/repos/users.js';
import { notificationBot } from '../reads/system-bots.js';
import { streamByName, streamInRealm, subscriberIds } from '../reads/streams.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import { eventWanted, Wild, type Integration } from '../webhooks/index.js';
import { sendMessage } from './message-send.js';

/** An incoming webhook request as the HTTP edge decoded it. */
export interface WebhookRequest {
  integration: Integration;
  /** The request's path, for the owner's notice about a missing header. */
  path: string;
  /** The body as sent, and its content type. */
  raw: string;
  contentType: string;
  /** Query parameters, with a form body's fields over them. */
  param(name: string): string | undefined;
  /** The form body's own fields (empty unless the body is a form). */
  form: Record<string, string>;
  headers: Readonly<Record<string, string | undefined>>;
  only?: string[] | undefined;
  exclude?: string[] | undefined;
}

/** Zulip's rate limit on notices to a bot's owner: one per bot per five minutes (BOT_OWNER_STREAM_ALERT_WAITPERIOD). */
const NOTICE_WAIT_MS = 5 * 60 * 1000;
const lastNotice = new WeakMap<AppContext, Map<number, number>>();

/**
 * Maps a third party's request to a message through its integration and sends it as the
 * webhook bot: to `stream` (name or id) under the caller's topic or the integration's, or
 * privately to the bot's owner. What the owner must fix (a missing stream, a missing event
 * header, a body that is not JSON) is also told to the owner, as Zulip does.
 */
export async function receiveWebhook(ctx: AppContext, realm: RealmRow, bot: UserRow, req: WebhookRequest): Promise<void> {
  const { integration } = req;
  const payload = decodePayload(req);
  if (payload === undefined) {
    await noticeToOwner(ctx, realm, bot, `Hi there! It looks like you tried to set up the ${integration.displayName} integration,\n`
      + "but didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!");
    throw malformedJson();
  }
  if (integration.eventHeader && req.headers[integration.eventHeader.toLowerCase()] === undefined) {
    await noticeToOwner(ctx, realm, bot, missingHeaderNotice(ctx, bot, req.path, integration));
    throw missingEventHeader(integration.eventHeader);
  }
  const userTopic = req.param('topic');
  const message = integration.handle({ payload, headers: req.headers, param: req.param, userTopic: userTopic !== undefined });
  if (message === null || !eventWanted(message.event, req.only, req.exclude)) return;

  const client = `Zulip${integration.displayName}Webhook`;
  const stream = req.param('stream');
  if (stream === undefined) {
    const owner = bot.bot_owner_id !== null ? await users.findInRealm(ctx.store.db, realm.id, bot.bot_owner_id) : undefined;
    // A webhook bot always has an owner (POST /bots); one made otherwise has nobody to tell.
    if (!owner) return;
    await sendMessage(ctx, realm, bot, { to: { kind: 'private', ids: [owner.id] }, content: message.body, client });
    return;
  }
  const byId = /^\d+$/.test(stream);
  const to = byId ? { kind: 'stream' as const, id: Number(stream) } : { kind: 'stream' as const, name: stream };
  await noticeIfStreamUnusable(ctx, realm, bot, byId ? { id: Number(stream) } : { name: stream.trim() });
  await sendMessage(ctx, realm, bot, { to, topic: userTopic ?? message.topic, content: message.body, client });
}

/** The payload the integration reads; undefined when the body is not the JSON it expects. */
function decodePayload(req: WebhookRequest): Wild | undefined {
  const json = (text: string): Wild | undefined => {
    try {
      return new Wild(JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  };
  const isForm = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(req.contentType);
  if (req.integration.payload === 'slack-form' && !/^application\/json/i.test(req.contentType)) {
    // Slack's own format: the JSON in a form field named `payload`.
    const field = req.param('payload');
    if (field === undefined) throw missingArgument('payload');
    return json(field);
  }
  const parsed = json(req.raw);
  if (parsed !== undefined) return parsed;
  // Clients that post a form (zulip-js, curl -d) send the payload's keys as its fields.
  if (isForm && Object.keys(req.form).length > 0) return new Wild({ ...req.form });
  return undefined;
}

function missingHeaderNotice(ctx: AppContext, bot: UserRow, path: string, integration: Integration): string {
  const support = ctx.config.adminEmail ?? 'your server administrator';
  return `Hi there!  Your bot ${bot.full_name} just sent an HTTP request to ${path} that\n`
    + `is missing the HTTP ${integration.eventHeader} header.  Because this header is how\n`
    + `${integration.displayName} indicates the event type, this usually indicates a configuration\n`
    + "issue, where you either entered the URL for a different integration, or are running\n"
    + "an older version of the third-party service that doesn't provide that header.\n"
    + `Contact ${support} if you need help debugging!`;
}

/** Zulip's send_pm_if_empty_stream: a stream that does not exist, or that nobody would read. */
async function noticeIfStreamUnusable(ctx: AppContext, realm: RealmRow, bot: UserRow, to: { id?: number; name?: string }): Promise<void> {
  const q = ctx.store.db;
  const stream = to.id !== undefined ? await streamInRealm(q, realm.id, to.id) : await streamByName(q, realm.id, to.name ?? '');
  const identity = `\`${bot.email}\``;
  if (!stream || stream.deactivated === 1) {
    await noticeToOwner(ctx, realm, bot, to.id !== undefined
      ? `Your bot ${identity} tried to send a message to stream ID ${to.id}, but there is no stream with that ID.`
      : `Your bot ${identity} tried to send a message to stream #**${to.name}**, but that stream does not exist. Click [here](#streams/new) to create it.`);
    return;
  }
  if ((await subscriberIds(q, stream.id)).length === 0) {
    await noticeToOwner(ctx, realm, bot, `Your bot ${identity} tried to send a message to stream #**${stream.name}**. The stream exists but does not have any subscribers.`);
  }
}

/** Notification Bot tells the bot's owner, at most once per bot every five minutes; a failure here never hides the request's own answer. */
async function noticeToOwner(ctx: AppContext, realm: RealmRow, bot: UserRow, content: string): Promise<void> {
  if (bot.bot_owner_id === null) return;
  let seen = lastNotice.get(ctx);
  if (!seen) lastNotice.set(ctx, (seen = new Map()));
  const now = Date.now();
  const last = seen.get(bot.id);
  if (last !== undefined && now - last <= NOTICE_WAIT_MS) return;
  seen.set(bot.id, now);
  try {
    const owner = await users.findInRealm(ctx.store.db, realm.id, bot.bot_owner_id);
    if (!owner || owner.is_active !== 1) return;
    const sender = await notificationBot(ctx.store.db, realm.id);
    await sendMessage(ctx, realm, sender, { to: { kind: 'private', ids: [owner.id] }, content, client: INTERNAL_CLIENT, internal: true });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.warn({ err: err.message, bot: bot.id }, 'webhook notice to the bot owner not sent');
  }
}
