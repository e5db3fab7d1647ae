import type { Tx } from './transaction.js';
import type { UserRow } from '../store/rows.js';
import { pushDevices } from '../store/repos/push-devices.js';
import { PUSH_KIND, type PushKind } from '../lib/push-kind.js';
import { nowSeconds } from '../lib/time.js';
import { invalidApnsToken, invalidTokenLength, tokenDoesNotExist } from '../errors.js';

/**
 * Mobile push registrations (Zulip's add_push_device_token / remove_push_device_token).
 * Stored whether or not this server can send pushes yet, as Zulip keeps its local
 * PushDeviceToken rows whatever its bouncer configuration; nothing is sent to clients.
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

/** Registering a token again changes nothing (Zulip's bulk_create with ignore_conflicts). */
export async function doAddPushDeviceToken(tx: Tx, user: UserRow, kind: PushKind, token: string, iosAppId: string | null): Promise<void> {
  checkPushToken(token, kind);
  if (await pushDevices.findOfUser(tx.db, user.id, kind, token)) return;
  await pushDevices.insert(tx.db, { user_id: user.id, kind, token, ios_app_id: kind === PUSH_KIND.APNS ? iosAppId : null, last_updated: nowSeconds() });
}

/** Only the user's own token of that kind; another user's is as missing as an unknown one. */
export async function doRemovePushDeviceToken(tx: Tx, user: UserRow, kind: PushKind, token: string): Promise<void> {
  checkPushToken(token, kind);
  if ((await pushDevices.deleteOfUser(tx.db, user.id, kind, token)) === 0) throw tokenDoesNotExist();
}

/** Zulip's clear_push_device_tokens, which regenerating the API key runs. */
export async function doClearPushDeviceTokens(tx: Tx, user: UserRow): Promise<void> {
  await pushDevices.deleteAllOfUser(tx.db, user.id);
}
