import type { Tx } from './transaction.js';
import type { StreamRow, UserRow } from '../store/rows.js';
import { users } from '../store/repos/users.js';
import { botServices } from '../store/repos/bot-services.js';
import { accessBotById } from '../access/bot.js';
import { accessStreamByName } from '../access/stream.js';
import { isAdminRole, Role } from '../lib/roles.js';
import { badRequest, botNameInUse, mustBeAdmin, mustBeOwner, invalidInterfaceType, ownerDeactivated, ownerIsBot, ownerNoSuchUser } from '../errors.js';
import { checkFullName } from './user-create.js';
import { doChangeFullName } from './user-update.js';
import { notifyRealmUser } from './user-notify.js';
import { botAudience, fullBot, notifyBotUpdate } from './bot-notify.js';
import { ALLOWED_INTERFACES } from './bot-create.js';
import { streamsVisibleTo } from '../reads/streams.js';
import { notifyStreamsForRole } from './user-update.js';
import { isPossibleId } from '../lib/ids.js';

/** PATCH /bots/{bot_id}'s parameters; a stream name '' clears that default. */
export interface BotPatch {
  fullName?: string;
  /** Feature level 130; a valid role (the handler checks it as Zulip's parser does). */
  role?: number;
  ownerId?: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  servicePayloadUrl?: string;
  /** Read only with servicePayloadUrl; Zulip defaults it to 1. */
  serviceInterface: number;
}

/**
 * PATCH /bots/{bot_id} (Zulip's patch_bot_backend): each change in Zulip's order, each
 * with its own event, in one transaction. Answers the bot as it now is.
 */
export async function doUpdateBot(tx: Tx, acting: UserRow, botId: number, patch: BotPatch): Promise<UserRow> {
  let bot = await accessBotById(tx.db, acting, botId);
  if (patch.fullName !== undefined) await changeBotFullName(tx, bot, patch.fullName);
  if (patch.role !== undefined && patch.role !== bot.role) {
    // As Zulip (logic of PATCH /users/{id}): ownership only by owners, any role only by
    // administrators; the bot's owner alone may not change it. No last-owner check: a bot
    // is never the organization's only owner. The event is realm_user's, as do_change_user_role's.
    if ((patch.role === Role.OWNER || bot.role === Role.OWNER) && acting.role !== Role.OWNER) throw mustBeOwner();
    if (!isAdminRole(acting.role)) throw mustBeAdmin();
    const visible = await streamsVisibleTo(tx.db, bot, tx.featureLevel);
    await users.update(tx.db, bot.id, { role: patch.role });
    await notifyRealmUser(tx, bot.realm_id, 'update', { user_id: bot.id, role: patch.role });
    bot = { ...bot, role: patch.role };
    await notifyStreamsForRole(tx, bot, visible);
  }
  if (patch.ownerId !== undefined) await changeBotOwner(tx, bot, patch.ownerId);
  if (patch.defaultSendingStream !== undefined) {
    const stream = await defaultStream(tx, acting, patch.defaultSendingStream);
    await users.update(tx.db, bot.id, { default_sending_stream_id: stream?.id ?? null });
    await notifyBotUpdate(tx, bot, { default_sending_stream: stream?.name ?? null });
  }
  if (patch.defaultEventsRegisterStream !== undefined) {
    const stream = await defaultStream(tx, acting, patch.defaultEventsRegisterStream);
    await users.update(tx.db, bot.id, { default_events_register_stream_id: stream?.id ?? null });
    await notifyBotUpdate(tx, bot, { default_events_register_stream: stream?.name ?? null });
  }
  if (patch.defaultAllPublicStreams !== undefined) {
    await users.update(tx.db, bot.id, { default_all_public_streams: patch.defaultAllPublicStreams ? 1 : 0 });
    await notifyBotUpdate(tx, bot, { default_all_public_streams: patch.defaultAllPublicStreams });
  }
  if (patch.servicePayloadUrl !== undefined) await updateOutgoingService(tx, bot, patch.serviceInterface, patch.servicePayloadUrl);
  bot = (await users.findInRealm(tx.db, bot.realm_id, bot.id))!;
  return bot;
}

/** Zulip's check_change_bot_full_name: an unchanged name is silently accepted (its web app resends it). */
async function changeBotFullName(tx: Tx, bot: UserRow, raw: string): Promise<void> {
  const name = checkFullName(raw);
  if (name === bot.full_name) return;
  if (await users.existsActiveWithName(tx.db, bot.realm_id, name)) throw botNameInUse();
  await doChangeFullName(tx, bot, name);
}

/** Zulip's access_stream_by_name, as the acting user: a stream they cannot see is an invalid name. */
async function defaultStream(tx: Tx, acting: UserRow, name: string): Promise<StreamRow | null> {
  return name === '' ? null : (await accessStreamByName(tx.db, acting, name)).stream;
}

/**
 * Zulip's do_change_bot_owner and send_bot_owner_update_events: an owner who is not an
 * administrator loses the bot from their realm_bots (delete) and the new one gains it
 * (add); administrators, who list every bot, hear an update. Everyone hears the new
 * bot_owner_id through realm_user.
 */
async function changeBotOwner(tx: Tx, bot: UserRow, ownerId: number): Promise<void> {
  const owner = isPossibleId(ownerId)
    ? await users.findInRealm(tx.db, bot.realm_id, ownerId) : undefined;
  if (!owner || owner.is_system_bot === 1) throw ownerNoSuchUser();
  if (owner.is_active !== 1) throw ownerDeactivated();
  if (owner.is_bot === 1) throw ownerIsBot();
  if (owner.id === bot.bot_owner_id) return;
  const previous = bot.bot_owner_id === null ? undefined : await users.findInRealm(tx.db, bot.realm_id, bot.bot_owner_id);
  await users.update(tx.db, bot.id, { bot_owner_id: owner.id });
  const moved = { ...bot, bot_owner_id: owner.id };
  const updated = await botAudience(tx, moved);
  if (previous && !isAdminRole(previous.role)) {
    tx.notify({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }, [previous.id], bot.realm_id);
    updated.delete(previous.id);
  }
  if (!isAdminRole(owner.role)) {
    tx.notify({ type: 'realm_bot', op: 'add', bot: await fullBot(tx, moved) }, [owner.id], bot.realm_id);
    updated.delete(owner.id);
  }
  tx.notify({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: owner.id } }, updated, bot.realm_id);
  await notifyRealmUser(tx, bot.realm_id, 'update', { user_id: bot.id, bot_owner_id: owner.id });
}

/** Zulip's do_update_outgoing_webhook_service: the bot's one service gets the new endpoint and format. */
async function updateOutgoingService(tx: Tx, bot: UserRow, iface: number, url: string): Promise<void> {
  if (!ALLOWED_INTERFACES.includes(iface)) throw invalidInterfaceType();
  const service = await botServices.findByBot(tx.db, bot.id);
  // Zulip fails with a server error here (it takes the first of no services); a clear answer instead.
  if (!service) throw badRequest('This bot has no outgoing webhook service');
  await botServices.update(tx.db, bot.id, { base_url: url, interface: iface });
  await notifyBotUpdate(tx, bot, { services: [{ base_url: url, interface: iface, token: service.token }] });
}
