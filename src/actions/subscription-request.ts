import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { badRequest, insufficientPermission, mustBeAdmin, streamDoesNotExist, mustBeOwner } from '../errors.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { canSeeStream, canSeeStreamMetadata } from '../access/stream.js';
import { hasPolicyPermission, webPublicStreamsEnabled } from '../access/realm-policy.js';
import { checkStreamName, doCreateStream, type StreamSpec } from './stream-create.js';
import { doAddSubscriptions } from './subscription-add.js';
import { doRemoveSubscriptions } from './subscription-remove.js';
import { sendSubscriptionNotices } from './subscription-notices.js';

export interface SubscribeRequest {
  streams: Array<{ name: string; description?: string }>;
  /** Already resolved; undefined means the caller alone. */
  principals?: UserRow[] | undefined;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean | undefined;
  streamPostPolicy?: number | undefined;
  messageRetentionDays?: number | null | undefined;
  authorizationErrorsFatal: boolean;
  announce?: boolean | undefined;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

function checkCanCreate(user: UserRow, realm: RealmRow, req: SubscribeRequest): void {
  if (!hasPolicyPermission(user, realm, req.inviteOnly ? 'create_private_stream_policy' : 'create_public_stream_policy')) {
    throw insufficientPermission();
  }
  if (req.isWebPublic) {
    if (!webPublicStreamsEnabled(realm)) throw badRequest('Web-public streams are not enabled.');
    if (!hasPolicyPermission(user, realm, 'create_web_public_stream_policy')) throw insufficientPermission();
  }
  if (req.messageRetentionDays !== undefined && user.role !== Role.OWNER) throw mustBeOwner();
}

/**
 * POST /users/me/subscriptions: creates the streams that do not exist yet, then
 * subscribes the principals to every stream the caller may join. Streams the caller
 * may not join are an error, or listed as `unauthorized` when errors are not fatal.
 */
export async function doSubscribeRequest(tx: Tx, realm: RealmRow, acting: UserRow, req: SubscribeRequest): Promise<SubscribeResult> {
  if (req.isWebPublic && req.inviteOnly) throw badRequest('Invalid parameters');
  const wanted = new Map<string, { name: string; description?: string }>();
  for (const s of req.streams) {
    checkStreamName(s.name);
    if (!wanted.has(s.name.toLowerCase())) wanted.set(s.name.toLowerCase(), s);
  }
  const existing = await streams.listByNames(tx.db, realm.id, [...wanted.values()].map((s) => s.name));
  const existingNames = new Set(existing.map((s) => s.name_lower));
  const missing = [...wanted.values()].filter((s) => !existingNames.has(s.name.toLowerCase()));
  const created: StreamRow[] = [];
  if (missing.length > 0) {
    checkCanCreate(acting, realm, req);
    for (const s of missing) {
      const spec: StreamSpec = {
        name: s.name, description: s.description ?? '', inviteOnly: req.inviteOnly, isWebPublic: req.isWebPublic,
        historyPublicToSubscribers: req.historyPublicToSubscribers ?? null, streamPostPolicy: req.streamPostPolicy ?? 1,
        messageRetentionDays: req.messageRetentionDays ?? null,
      };
      created.push(await doCreateStream(tx, realm, spec));
    }
  }
  const authorized: StreamRow[] = [];
  const unauthorized: StreamRow[] = [];
  for (const s of existing) {
    const sub = await subscriptions.findActive(tx.db, acting.id, s.id);
    (canSeeStream(acting, s, sub) ? authorized : unauthorized).push(s);
  }
  if (unauthorized.length > 0 && req.authorizationErrorsFatal) {
    throw badRequest(`Unable to access stream (${unauthorized[0]!.name}).`);
  }
  let targets = [acting];
  if (req.principals && req.principals.length > 0) {
    if (!hasPolicyPermission(acting, realm, 'invite_to_stream_policy')) throw insufficientPermission();
    targets = req.principals;
  }
  const { subscribed, alreadySubscribed } = await doAddSubscriptions(tx, [...authorized, ...created], targets);
  const outcome = { realm, acting, created, subscribed, announce: req.announce ?? false };
  tx.later((ctx) => sendSubscriptionNotices(ctx, outcome));
  const result: SubscribeResult = { subscribed: {}, already_subscribed: {} };
  for (const p of subscribed) (result.subscribed[p.user.email] ??= []).push(p.stream.name);
  for (const p of alreadySubscribed) (result.already_subscribed[p.user.email] ??= []).push(p.stream.name);
  if (!req.authorizationErrorsFatal) result.unauthorized = unauthorized.map((s) => s.name);
  return result;
}

/**
 * DELETE /users/me/subscriptions. A stream the caller may not know of is reported as
 * missing, exactly like one that does not exist; only administrators act for others.
 */
export async function doUnsubscribeRequest(tx: Tx, acting: UserRow, names: string[], principals: UserRow[] | undefined): Promise<{ removed: string[]; not_removed: string[] }> {
  const list: StreamRow[] = [];
  for (const raw of names) {
    const name = raw.trim();
    const stream = await streams.findByName(tx.db, acting.realm_id, name);
    const sub = stream ? await subscriptions.findActive(tx.db, acting.id, stream.id) : undefined;
    if (!stream || !canSeeStreamMetadata(acting, stream, sub)) throw streamDoesNotExist(name);
    if (!list.some((s) => s.id === stream.id)) list.push(stream);
  }
  const targets = principals && principals.length > 0 ? principals : [acting];
  if (targets.some((u) => u.id !== acting.id) && !isAdminRole(acting.role)) throw mustBeAdmin();
  const { removed, notSubscribed } = await doRemoveSubscriptions(tx, list, targets);
  return { removed: removed.map((p) => p.stream.name), not_removed: notSubscribed.map((p) => p.stream.name) };
}
