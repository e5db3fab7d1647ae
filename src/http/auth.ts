import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../rows.js';
import { invalidApiKey, malformedApiKey, nonexistentSubdomain, notForWebhookBots, realmDeactivated, unauthorized, userDeactivated, webhookBotOnly, webhookKeyMissing } from '../errors.js';
import { BotType } from '../lib/roles.js';
import { constantTimeEqual } from '../lib/secrets.js';
import { subdomainOf } from '../lib/realm-host.js';
import { loginByEmail, realmBySubdomain, rememberVerifiedHeader, userByApiKey, verifiedHeader } from '../reads/logins.js';

const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;

export async function resolveRealm(ctx: AppContext, host: string | undefined): Promise<RealmRow> {
  const realm = await realmBySubdomain(ctx.store.db, subdomainOf(ctx.config, host));
  if (!realm) throw nonexistentSubdomain();
  return realm;
}

export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } {
  if (header === undefined) throw unauthorized('Missing authorization header for basic auth');
  const [scheme, credentials, ...rest] = header.trim().split(/\s+/);
  if (!scheme || !credentials || rest.length > 0) throw unauthorized('Invalid authorization header for basic auth');
  if (scheme.toLowerCase() !== 'basic') throw unauthorized('This endpoint requires HTTP basic authentication.');
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const sep = decoded.lastIndexOf(':');
  if (sep <= 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, sep), apiKey: decoded.slice(sep + 1) };
}

/**
 * The login this exact header on this exact host was verified as, if that is still
 * current: no promise, so that GET /events can answer or park in the same tick.
 */
export function verifiedLogin(ctx: AppContext, host: string | undefined, header: string | undefined): { user: UserRow; realm: RealmRow } | undefined {
  return header !== undefined ? verifiedHeader(ctx.store.db, `${host ?? ''}\n${header}`) : undefined;
}

/**
 * Incoming-webhook bots may only post through their webhook URLs and POST /messages (Zulip's
 * allow_incoming_webhooks): one comparison of a field the login already holds.
 */
export function refuseWebhookBot(user: UserRow, allowWebhookBot = false): void {
  if (user.bot_type === BotType.INCOMING_WEBHOOK && !allowWebhookBot) throw notForWebhookBots();
}

/** HTTP basic authentication with email and API key, against the Host's organization. */
export async function authenticate(ctx: AppContext, host: string | undefined, header: string | undefined, allowWebhookBot = false): Promise<{ user: UserRow; realm: RealmRow }> {
  // The exact header (which holds the key) on the exact host was verified moments ago:
  // a hit skips decoding and comparing. Entries are only made after a verified login.
  const exact = verifiedLogin(ctx, host, header);
  if (exact) {
    refuseWebhookBot(exact.user, allowWebhookBot);
    return exact;
  }
  const { email, apiKey } = parseBasicAuth(header);
  // Zulip's has_api_key_format: anything but 32 letters and digits is no key at all.
  if (!API_KEY_FORMAT.test(apiKey)) throw malformedApiKey();
  if (email.includes('\u0000')) throw invalidApiKey();
  const login = await loginByEmail(ctx.store.db, subdomainOf(ctx.config, host), email);
  // The key is compared in constant time on every request that is not an exact repeat.
  if (!login || !constantTimeEqual(login.value.user.api_key, apiKey)) throw invalidApiKey();
  if (login.value.realm.deactivated === 1) throw realmDeactivated();
  if (login.value.user.is_active !== 1) throw userDeactivated();
  rememberVerifiedHeader(ctx.store.db, `${host ?? ''}\n${header}`, login);
  refuseWebhookBot(login.value.user, allowWebhookBot);
  return login.value;
}

/**
 * An incoming webhook's credentials (Zulip's webhook_view): the bot's key in the `api_key`
 * parameter, else HTTP basic authentication. Only an incoming-webhook bot's key is taken
 * (issue 21; Zulip would take any account's).
 */
export async function authenticateWebhook(ctx: AppContext, host: string | undefined, apiKey: string | undefined, header: string | undefined): Promise<{ bot: UserRow; realm: RealmRow }> {
  const realm = await resolveRealm(ctx, host);
  let email: string | undefined;
  if (apiKey === undefined) {
    if (header === undefined) throw webhookKeyMissing();
    ({ email, apiKey } = parseBasicAuth(header));
  }
  // Zulip strips whitespace from a pasted key.
  const key = apiKey.trim();
  if (!API_KEY_FORMAT.test(key)) throw malformedApiKey();
  const bot = await userByApiKey(ctx.store.db, realm.id, key);
  // The key of another account than the one named: no key at all, as Zulip answers.
  if (!bot || !constantTimeEqual(bot.api_key, key) || (email !== undefined && email.trim().toLowerCase() !== bot.delivery_email.toLowerCase())) throw invalidApiKey();
  if (realm.deactivated === 1) throw realmDeactivated();
  if (bot.is_active !== 1) throw userDeactivated();
  if (bot.bot_type !== BotType.INCOMING_WEBHOOK) throw webhookBotOnly();
  return { bot, realm };
}
