import crypto from 'node:crypto';
import type { Q } from '../store/rows.js';
import { pushServer } from '../store/repos/push-outbox.js';
import { randomString } from '../lib/secrets.js';
import type { BouncerCredentials } from './bouncer-client.js';

/**
 * This server's identity at Zulip's push notification service: Zulip's zulip_org_id (a
 * UUID) and zulip_org_key (64 random characters, as its register_server --rotate-key
 * makes one), generated once and stored (migration 063); the first node to store them wins.
 */
export async function ensurePushCredentials(db: Q): Promise<BouncerCredentials> {
  let row = await pushServer.find(db);
  if (!row) {
    await pushServer.insertIfAbsent(db, crypto.randomUUID(), randomString(64));
    row = await pushServer.find(db);
  }
  if (!row) throw new Error('push notification service credentials could not be stored');
  return { orgId: row.zulip_org_id, orgKey: row.zulip_org_key };
}

/**
 * Zulip sends users' and organizations' UUIDs (user_uuid, realm_uuid), which Parley's rows
 * do not have: each is derived from this server's zulip_org_id and the row's id, so it is
 * the same at every call and unique to this server, in the UUID version 4 form the service checks.
 */
export function derivedUuid(orgId: string, what: 'user' | 'realm', id: number): string {
  const b = crypto.createHash('sha256').update(`${orgId}:${what}:${id}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Zulip's realm.uuid_owner_secret (`zuliprealm_` and 32 characters), which the service keeps
 * to tell that later claims to the organization come from this server: derived with an HMAC
 * keyed by zulip_org_key, so that it is the same at every upload and known to no one without
 * the key. It is a secret: never logged.
 */
export function realmOwnerSecret(orgKey: string, realmId: number): string {
  return `zuliprealm_${crypto.createHmac('sha256', orgKey).update(`realm-owner-secret:${realmId}`).digest('hex').slice(0, 32)}`;
}
