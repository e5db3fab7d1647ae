import { realmAuthenticationMethods } from '../presenters/auth-methods.js';
import type { AppContext } from '../context.js';
import { pushOutbox, pushRealm, pushServer } from '../store/repos/push-outbox.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { transact as storeTransact } from '../store/tx.js';
import { publish } from '../events/publish.js';
import { realmUri } from '../lib/realm-host.js';
import { realmSettings } from '../lib/realm-settings.js';
import { zulipVersionOf } from '../lib/version.js';
import { nowSeconds } from '../lib/time.js';
import { derivedUuid, ensurePushCredentials, realmOwnerSecret } from './push-identity.js';

/**
 * Zulip's send_server_data_to_push_bouncer (zerver/lib/remote_server.py): after registering
 * and then every hour, the server tells the service its organizations (POST
 * server/analytics), and the service answers, per organization, whether it may push
 * (`can_push`) and until when (`expected_end_timestamp`). Parley keeps no usage statistics
 * (Zulip's RealmCount, InstallationCount) nor billing audit log: those lists go empty, as
 * Zulip's do when it is told not to upload statistics. The call goes through the outbox.
 */

export const ANALYTICS_ENDPOINT = 'server/analytics';
/** Zulip's analytics cron runs hourly. */
export const ANALYTICS_PERIOD_SECS = 3600;
/** How often each node checks whether the upload is due (the claim makes it one node's). */
const CHECK_MS = 60_000;
/** Nodes that register at once upload once: a second queueing this soon after another is skipped. */
const AFTER_REGISTER_SPACING_SECS = 30;


/** The form fields of Zulip's AnalyticsRequest: each a JSON text, as Zulip's model_dump(round_trip=True) posts them. */
export async function serverDataForm(ctx: AppContext): Promise<Record<string, string>> {
  const { orgId, orgKey } = await ensurePushCredentials(ctx.store.db);
  const list = (await realms.list(ctx.store.db)).map((realm) => {
    const url = realmUri(ctx.config, realm);
    return {
      id: realm.id,
      host: new URL(url).host,
      url,
      name: realm.name,
      org_type: realmSettings(realm.settings).org_type,
      date_created: realm.date_created,
      deactivated: realm.deactivated === 1,
      // Parley's system bots live in each organization: there is no system bot realm.
      is_system_bot_realm: false,
      // Zulip's authentication_methods_dict: the backends enabled.
      authentication_methods: Object.fromEntries(Object.entries(realmAuthenticationMethods(ctx.config.sso)).filter(([, on]) => on)),
      uuid: derivedUuid(orgId, 'realm', realm.id),
      uuid_owner_secret: realmOwnerSecret(orgKey, realm.id),
    };
  });
  const { version, mergeBase } = zulipVersionOf(ctx.config.featureLevel);
  return {
    realm_counts: '[]',
    installation_counts: '[]',
    realmauditlog_rows: '[]',
    realms: JSON.stringify(list),
    version: JSON.stringify(version),
    merge_base: JSON.stringify(mergeBase),
    api_feature_level: JSON.stringify(ctx.config.featureLevel),
  };
}

/**
 * Queues the upload unless a node queued one within `spacing` seconds of `now` (tests pass a
 * later clock) or one is still waiting in the outbox: whether it queued one.
 */
export async function queueServerDataUpload(ctx: AppContext, now = nowSeconds(), spacing = ANALYTICS_PERIOD_SECS): Promise<boolean> {
  if (!ctx.config.pushBouncerUrl) return false;
  await ensurePushCredentials(ctx.store.db);
  if (await pushOutbox.hasPending(ctx.store.db, ANALYTICS_ENDPOINT)) return false;
  if (!(await pushServer.claimAnalytics(ctx.store.db, now, spacing))) return false;
  const body = JSON.stringify({ form: await serverDataForm(ctx) });
  await pushOutbox.insert(ctx.store.db, [{ endpoint: ANALYTICS_ENDPOINT, body, due: now }]);
  ctx.push?.kick();
  return true;
}

/** The first upload, right after the service accepted the registration (Zulip's register_server does it too). */
export function queueUploadAfterRegistration(ctx: AppContext): Promise<boolean> {
  return queueServerDataUpload(ctx, nowSeconds(), AFTER_REGISTER_SPACING_SECS);
}

/** Every node checks each minute; the stored claim makes the hourly upload one node's. */
export function startServerDataUploads(ctx: AppContext): void {
  const timer = setInterval(() => {
    queueServerDataUpload(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'queueing the push notification service data upload failed'));
  }, CHECK_MS);
  timer.unref();
  ctx.shutdownHooks.push(() => {
    clearInterval(timer);
    return Promise.resolve();
  });
}

/**
 * The answer's `realms`, by organization UUID: `can_push` and `expected_end_timestamp`
 * become the organization's push status (an unknown UUID is skipped, as Zulip logs and skips it).
 */
export async function applyServerDataAnswer(ctx: AppContext, answer: Record<string, unknown>): Promise<void> {
  const answered = answer.realms;
  if (answered === null || typeof answered !== 'object') return;
  const { orgId } = await ensurePushCredentials(ctx.store.db);
  const byUuid = new Map((await realms.list(ctx.store.db)).map((r) => [derivedUuid(orgId, 'realm', r.id), r.id]));
  for (const [uuid, data] of Object.entries(answered as Record<string, unknown>)) {
    const realmId = byUuid.get(uuid);
    if (realmId === undefined) {
      ctx.log.warn({ realmUuid: uuid }, 'push notification service answered for an unknown organization');
      continue;
    }
    const d = (data ?? {}) as { can_push?: unknown; expected_end_timestamp?: unknown };
    if (typeof d.can_push !== 'boolean') continue;
    const end = typeof d.expected_end_timestamp === 'number' ? d.expected_end_timestamp : null;
    await setRealmPushStatus(ctx, realmId, d.can_push, end);
  }
}

/**
 * Zulip's do_set_realm_property(push_notifications_enabled) and
 * do_set_push_notifications_enabled_end_timestamp: stored, and each change told to the
 * organization's active users as a realm/update event after the commit.
 */
export async function setRealmPushStatus(ctx: AppContext, realmId: number, canPush: boolean, endTimestamp: number | null): Promise<void> {
  await storeTransact(ctx.store.db, async (tx) => {
    const before = await pushRealm.find(tx.db, realmId);
    // Before any answer the organization reports what the server's registration says: enabled.
    const wasEnabled = before ? before.can_push === 1 : true;
    const wasEnd = before?.end_timestamp ?? null;
    if (before && wasEnabled === canPush && wasEnd === endTimestamp) return;
    await pushRealm.set(tx.db, realmId, canPush, endTimestamp);
    const changes: Array<{ property: string; value: unknown }> = [];
    if (wasEnabled !== canPush) changes.push({ property: 'push_notifications_enabled', value: canPush });
    // The end timestamp is in the register state from level 231.
    if (wasEnd !== endTimestamp && ctx.config.featureLevel >= 231) changes.push({ property: 'push_notifications_enabled_end_timestamp', value: endTimestamp });
    if (changes.length === 0) return;
    const audience = await users.listActiveIdsInRealm(tx.db, realmId);
    tx.onCommit(() => {
      for (const c of changes) publish(ctx.bus, realmId, { type: 'realm', op: 'update', ...c }, audience);
    });
  }, (err) => ctx.log.error({ err }, 'after-commit hook failed'));
}
