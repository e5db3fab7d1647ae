import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { pushDevices } from '../store/repos/push-devices.js';
import { PUSH_KIND, type PushKind } from '../lib/push-kind.js';
import { nowSeconds } from '../lib/time.js';
import { invalidApnsToken, invalidTokenLength, tokenDoesNotExist } from '../errors.js';
import { queueDeviceRegistration, queueDeviceUnregistration, queueUnregisterAll } from '../notifications/push.js';

/**
 * Mobile push registrations (Zulip's add_push_device_token / remove_push_device_token).
 * Stored whatever the push configuration, as Zulip keeps its local PushDeviceToken rows;
 * with PARLEY_PUSH_BOUNCER_URL set, each change is also forwarded to Zulip's push
 * notification service through its outbox (src/notifications/push.ts), after the commit.
 */

/** Zulip's default `appid` before feature level 223 made it required. */
export const DEFAULT_IOS_APP_ID = 'org.zulip.Zulip';

const B64 = /[A-Za-z0-9+/]/;

/**
 * Python's base64.b64decode(s) without validate=True, which Zulip runs on an APNs token
 * (b64_to_hex) only to see that it decodes: ASCII only, characters outside the alphabet
 * skipped, and enough padding, which ends the input once it completes a group.
 */
export function decodesAsPythonBase64(s: string): boolean {
  if (!/^[\x00-\x7f]*$/.test(s)) return false;
  let quadPos = 0;
  let pads = 0;
  for (const c of s) {
    if (c === '=') {
      pads += 1;
      if (quadPos >= 2 && quadPos + pads >= 4) return true;
      continue;
    }
    if (!B64.test(c)) continue;
    pads = 0;
    quadPos = (quadPos + 1) % 4;
  }
  return quadPos === 0;
}

/** Zulip's validate_token, for adding and removing alike. */
export function checkPushToken(token: string, kind: PushKind): void {
  if (token === '' || token.length > 4096) throw invalidTokenLength();
  if (kind === PUSH_KIND.APNS && !decodesAsPythonBase64(token)) throw invalidApnsToken();
}

/**
 * Registering a token again stores nothing new (Zulip's bulk_create with ignore_conflicts)
 * but is forwarded again, as Zulip forwards every registration.
 */
export async function doAddPushDeviceToken(tx: Tx, user: UserRow, kind: PushKind, token: string, iosAppId: string | null): Promise<void> {
  checkPushToken(token, kind);
  const appId = kind === PUSH_KIND.APNS ? iosAppId : null;
  if (!(await pushDevices.findOfUser(tx.db, user.id, kind, token))) {
    await pushDevices.insert(tx.db, { user_id: user.id, kind, token, ios_app_id: appId, last_updated: nowSeconds() });
  }
  tx.later((ctx) => queueDeviceRegistration(ctx, user, kind, token, appId));
}

/** Only the user's own token of that kind; another user's is as missing as an unknown one. */
export async function doRemovePushDeviceToken(tx: Tx, user: UserRow, kind: PushKind, token: string): Promise<void> {
  checkPushToken(token, kind);
  if ((await pushDevices.deleteOfUser(tx.db, user.id, kind, token)) === 0) throw tokenDoesNotExist();
  tx.later((ctx) => queueDeviceUnregistration(ctx, user, kind, token));
}

/** Zulip's clear_push_device_tokens, which regenerating the API key and deactivating the user run. */
export async function doClearPushDeviceTokens(tx: Tx, user: UserRow): Promise<void> {
  await pushDevices.deleteAllOfUser(tx.db, user.id);
  tx.later((ctx) => queueUnregisterAll(ctx, user));
}
