import type { AppContext } from '../context.js';
import type { PushDeviceRow, Q, UserRow } from '../store/rows.js';
import type { MissedMessage } from './triggers.js';
import { pushActive, pushOutbox } from '../store/repos/push-outbox.js';
import { pushDevices } from '../store/repos/push-devices.js';
import { messages } from '../store/repos/messages.js';
import { users } from '../store/repos/users.js';
import { streams } from '../store/repos/streams.js';
import { realms } from '../store/repos/realms.js';
import { recipients } from '../store/repos/recipients.js';
import { userGroups } from '../store/repos/user-groups.js';
import { transact as storeTransact } from '../store/tx.js';
import { PUSH_KIND, type PushKind } from '../lib/push-kind.js';
import { RecipientType } from '../lib/recipient-type.js';
import { realmUri } from '../lib/realm-host.js';
import { userSettings } from '../lib/user-settings.js';
import { nowSeconds } from '../lib/time.js';
import { avatarUrl } from '../presenters/user.js';
import { derivedUuid, ensurePushCredentials } from './push-identity.js';
import { EMPTY_TOPIC_DISPLAY_NAME, messagePayloadApns, messagePayloadGcm, removePayloads, type PushMessage, type PushRecipient } from './push-payloads.js';
import type { BouncerBody } from './bouncer-client.js';
import { startPushOutbox, type PushOutboxWorker } from './push-outbox.js';
import { startServerDataUploads } from './push-analytics.js';

/**
 * Mobile push notifications through Zulip's push notification service (the "bouncer"),
 * the server's half of Zulip's protocol (zerver/lib/push_notifications.py). Nothing here
 * calls the service: each call is queued in the durable outbox (push-outbox.ts), which
 * makes it off every request's path. With PARLEY_PUSH_BOUNCER_URL unset, all of it is off.
 */

export type PushService = PushOutboxWorker;

/** Starts the outbox worker and queues this server's registration; nothing when push is off. */
export function startPush(ctx: AppContext): PushService | undefined {
  if (!ctx.config.pushBouncerUrl) return undefined;
  const worker = startPushOutbox(ctx);
  ctx.push = worker;
  // Zulip's register_server: run at each start, so that the hostname and contact the
  // service holds follow the configuration. A failure is retried by the outbox.
  void queueServerRegistration(ctx).catch((err: unknown) => ctx.log.error({ err }, 'queueing the push notification service registration failed'));
  // Then, hourly, Zulip's server data upload (the first follows the registration: push-outbox.ts).
  startServerDataUploads(ctx);
  return worker;
}

async function queueServerRegistration(ctx: AppContext): Promise<void> {
  const creds = await ensurePushCredentials(ctx.store.db);
  if (await pushOutbox.hasPending(ctx.store.db, 'server/register')) return;
  await enqueue(ctx, [{
    endpoint: 'server/register',
    body: { form: {
      zulip_org_id: creds.orgId, zulip_org_key: creds.orgKey,
      hostname: new URL(ctx.config.externalUrl).host,
      contact_email: ctx.config.adminEmail ?? '',
    } },
  }]);
}

async function enqueue(ctx: AppContext, calls: Array<{ endpoint: string; body: BouncerBody }>, db: Q = ctx.store.db): Promise<void> {
  const now = nowSeconds();
  await pushOutbox.insert(db, calls.map((c) => ({ endpoint: c.endpoint, body: JSON.stringify(c.body), due: now })));
}

/** The identity fields of Zulip's push/register, push/unregister and push/unregister/all. */
async function userIdentity(ctx: AppContext, user: UserRow): Promise<Record<string, string>> {
  const { orgId } = await ensurePushCredentials(ctx.store.db);
  return {
    server_uuid: orgId,
    user_uuid: derivedUuid(orgId, 'user', user.id),
    realm_uuid: derivedUuid(orgId, 'realm', user.realm_id),
    user_id: String(user.id),
  };
}

/** Zulip's add_push_device_token with a bouncer: the device, forwarded (push/register). */
export async function queueDeviceRegistration(ctx: AppContext, user: UserRow, kind: PushKind, token: string, iosAppId: string | null): Promise<void> {
  if (!ctx.config.pushBouncerUrl) return;
  const form = { ...(await userIdentity(ctx, user)), token, token_kind: String(kind), ...(kind === PUSH_KIND.APNS && iosAppId ? { ios_app_id: iosAppId } : {}) };
  await enqueue(ctx, [{ endpoint: 'push/register', body: { form } }]);
  ctx.push?.kick();
}

/** Zulip's remove_push_device_token with a bouncer (push/unregister). */
export async function queueDeviceUnregistration(ctx: AppContext, user: UserRow, kind: PushKind, token: string): Promise<void> {
  if (!ctx.config.pushBouncerUrl) return;
  const form = { ...(await userIdentity(ctx, user)), token, token_kind: String(kind) };
  await enqueue(ctx, [{ endpoint: 'push/unregister', body: { form } }]);
  ctx.push?.kick();
}

/** Zulip's clear_push_device_tokens with a bouncer (push/unregister/all): a new API key, a deactivation. */
export async function queueUnregisterAll(ctx: AppContext, user: UserRow): Promise<void> {
  if (!ctx.config.pushBouncerUrl) return;
  await pushActive.clearUser(ctx.store.db, user.id);
  await enqueue(ctx, [{ endpoint: 'push/unregister/all', body: { form: await userIdentity(ctx, user) } }]);
  ctx.push?.kick();
}

/** Zulip's get_base_payload's facts for a user. */
async function recipientOf(ctx: AppContext, user: UserRow): Promise<PushRecipient | undefined> {
  const realm = await realms.findById(ctx.store.db, user.realm_id);
  if (!realm) return undefined;
  return {
    server: new URL(ctx.config.externalUrl).host,
    realmId: realm.id, realmUrl: realmUri(ctx.config, realm), realmName: realm.name,
    userId: user.id, featureLevel: ctx.config.featureLevel,
  };
}

/** send_notifications_to_bouncer's body for the user's devices (none: no call, as Zulip skips the service). */
async function notifyCall(ctx: AppContext, user: UserRow, devices: PushDeviceRow[], apns: unknown, gcm: unknown, gcmOptions: unknown): Promise<{ endpoint: string; body: BouncerBody } | undefined> {
  if (devices.length === 0) return undefined;
  const { orgId } = await ensurePushCredentials(ctx.store.db);
  return {
    endpoint: 'push/notify',
    body: { json: {
      user_uuid: derivedUuid(orgId, 'user', user.id),
      user_id: user.id,
      realm_uuid: derivedUuid(orgId, 'realm', user.realm_id),
      apns_payload: apns,
      gcm_payload: gcm,
      gcm_options: gcmOptions,
      android_devices: devices.filter((d) => d.kind === PUSH_KIND.FCM).map((d) => d.token),
      apple_devices: devices.filter((d) => d.kind === PUSH_KIND.APNS).map((d) => d.token),
    } },
  };
}

/**
 * Zulip's handle_push_notification for a user's due notifications (the notification worker
 * calls it): one push/notify per message not yet read nor already pushed, queued in the
 * outbox with the message marked pushed in the same transaction. Returns once queued.
 */
export async function sendMissedMessagePushes(ctx: AppContext, user: UserRow, items: MissedMessage[]): Promise<void> {
  if (!ctx.config.pushBouncerUrl || items.length === 0 || user.is_bot === 1 || user.is_active !== 1) return;
  const s = userSettings(user.settings);
  if (!(s.enable_offline_push_notifications || s.enable_online_push_notifications)) return;
  const devices = await pushDevices.listOfUser(ctx.store.db, user.id);
  if (devices.length === 0) return;
  const to = await recipientOf(ctx, user);
  if (!to) return;
  const prepared: Array<{ messageId: number; call: NonNullable<Awaited<ReturnType<typeof notifyCall>>> }> = [];
  for (const item of items) {
    const facts = await messageFacts(ctx, user, item);
    if (!facts) continue;
    const gcm = messagePayloadGcm(to, facts);
    const call = await notifyCall(ctx, user, devices, messagePayloadApns(to, facts), gcm.payload, gcm.options);
    if (!call) return;
    prepared.push({ messageId: item.messageId, call });
  }
  if (prepared.length === 0) return;
  // One transaction for the user's batch: the store's writer is shared with the sends.
  await storeTransact(ctx.store.db, async (tx) => {
    const calls = [];
    // Pushed once, as Zulip's active_mobile_push_notification flag ensures.
    for (const p of prepared) if (await pushActive.add(tx.db, user.id, p.messageId)) calls.push(p.call);
    if (calls.length > 0) await enqueue(ctx, calls, tx.db);
  }, (err) => ctx.log.error({ err }, 'after-commit hook failed'));
  ctx.push?.kick();
}

/** The message as the payloads need it; undefined when it is gone, not the user's, or read. */
async function messageFacts(ctx: AppContext, user: UserRow, item: MissedMessage): Promise<PushMessage | undefined> {
  const db = ctx.store.db;
  const flags = await messages.flagsOf(db, user.id, item.messageId);
  if (!flags || (flags.flags & 1) !== 0) return undefined;
  const m = await messages.findById(db, item.messageId);
  if (!m) return undefined;
  const sender = await users.findById(db, m.sender_id);
  if (!sender) return undefined;
  const avatar = avatarUrl(sender, false);
  const facts: PushMessage = {
    id: m.id, senderId: sender.id, senderEmail: sender.email, senderFullName: sender.full_name,
    senderAvatarUrl: avatar.startsWith('/') ? new URL(avatar, ctx.config.externalUrl).toString() : avatar,
    time: m.date_sent, renderedContent: m.rendered_content, redacted: ctx.config.pushRedactContent, trigger: item.trigger,
  };
  if (m.stream_id !== null) {
    const stream = await streams.findById(db, m.stream_id);
    if (!stream) return undefined;
    facts.stream = { id: stream.id, name: stream.name, topic: m.topic === '' ? EMPTY_TOPIC_DISPLAY_NAME : m.topic };
  } else {
    const [r] = await recipients.listByIds(db, [m.recipient_id]);
    let ids: number[];
    if (r?.type === RecipientType.HUDDLE) ids = (await messages.huddleMembers(db, [r.id])).get(r.id) ?? [];
    else ids = [...new Set([m.sender_id, r?.type_id ?? user.id])];
    const members = await users.listByIds(db, ids);
    facts.dm = members.map((u) => ({ id: u.id, fullName: u.full_name }));
  }
  if (item.mentionedUserGroupId !== null && item.trigger === 'mentioned') {
    const group = await userGroups.findInRealm(db, user.realm_id, item.mentionedUserGroupId);
    if (group) facts.mentionedGroup = { id: group.id, name: group.name };
  }
  return facts;
}

/**
 * Zulip's handle_remove_push_notification: the user read messages (`null`: all of them)
 * and their phones still show the pushes of some; those are forgotten and one `remove`
 * push is queued. One indexed look-up when nothing was pushed; nothing at all with push off.
 */
export async function queueRemovePushes(ctx: AppContext, user: UserRow, messageIds: number[] | null): Promise<void> {
  if (!ctx.config.pushBouncerUrl) return;
  const pushed = await pushActive.take(ctx.store.db, user.id, messageIds);
  if (pushed.length === 0) return;
  await queueRemoveCall(ctx, user, pushed);
}

/**
 * Zulip's do_delete_messages → handle_remove_push_notification: deleted messages whose push
 * phones still show are removed from them, one `remove` push per user who was pushed one.
 * One indexed look-up when none was pushed; nothing at all with push off.
 */
export async function queueRemovePushesOfDeleted(ctx: AppContext, messageIds: number[]): Promise<void> {
  if (!ctx.config.pushBouncerUrl || messageIds.length === 0) return;
  const byUser = await pushActive.takeMessages(ctx.store.db, messageIds);
  if (byUser.size === 0) return;
  for (const user of await users.listByIds(ctx.store.db, [...byUser.keys()])) {
    await queueRemoveCall(ctx, user, byUser.get(user.id)!.sort((a, b) => a - b));
  }
}

async function queueRemoveCall(ctx: AppContext, user: UserRow, pushed: number[]): Promise<void> {
  const to = await recipientOf(ctx, user);
  if (!to) return;
  const p = removePayloads(to, pushed);
  const call = await notifyCall(ctx, user, await pushDevices.listOfUser(ctx.store.db, user.id), p.apns, p.gcm, p.gcmOptions);
  if (!call) return;
  await enqueue(ctx, [call]);
  ctx.push?.kick();
}
