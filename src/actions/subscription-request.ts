import { metadataGroupsFor } from '../access/channel-access.js';
import { catchUpIdle } from './soft-deactivation.js';
import type { AppContext } from '../context.js';
import { transact, type Tx } from './transaction.js';
import type { Q, RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { badRequest, insufficientPermission, mustBeAdmin, streamDoesNotExist, mustBeOwner, tooManySubscriptions } from '../errors.js';
import { Role, isAdminRole } from '../lib/roles.js';
import { canSeeStream, canSeeStreamMetadata } from '../access/stream.js';
import { webPublicStreamsEnabled } from '../access/realm-policy.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { checkStreamName, doCreateStream } from './stream-create.js';
import { doAddSubscriptions, type SubPair } from './subscription-add.js';
import { accessPrincipals } from '../access/user.js';
import { accessGroupSettingValue, canRemoveSubscribers, userHasGroupSettingValue } from '../access/group-setting.js';
import { STREAM_PERMISSION_SETTINGS, streamSettingConfig } from '../lib/permission-settings.js';
import { streamSettingValue, type StreamGroupSettingName } from '../lib/stream-group-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import type { StreamGroupSettingChanges } from '../lib/stream-group-settings.js';
import { CAN_REMOVE_SUBSCRIBERS_PARAM_LEVEL } from '../presenters/stream.js';
import { LIST_LIMITS } from '../lib/limits.js';
import { doRemoveSubscriptions } from './subscription-remove.js';
import { sendSubscriptionNotices } from './subscription-notices.js';
import { doAddDefaultStream } from './default-streams.js';
import { realms } from '../store/repos/realms.js';

/**
 * From it subscriptions in archived streams are added and removed like any other (Zulip's
 * filter_stream_authorization no longer refuses deactivated channels). Below it an archived
 * stream's name is unknown to these requests, as before.
 */
export const ARCHIVED_SUBSCRIPTIONS_LEVEL = 362;

/**
 * The active streams of these names and, from level 362, the archived ones whose names no
 * active stream holds (an archived stream keeps its name in Zulip 10; Parley frees
 * name_lower on archiving, so an active stream of the same name wins).
 */
async function withArchived(q: Q, realmId: number, names: string[], level: number): Promise<StreamRow[]> {
  const active = await streams.listByNames(q, realmId, names);
  if (level < ARCHIVED_SUBSCRIPTIONS_LEVEL) return active;
  const taken = new Set(active.map((s) => s.name_lower));
  const rest = names.filter((n) => !taken.has(n.toLowerCase()));
  const archived: StreamRow[] = [];
  for (const s of await streams.listArchivedByNames(q, realmId, rest)) {
    if (!archived.some((a) => a.name.toLowerCase() === s.name.toLowerCase())) archived.push(s);
  }
  return [...active, ...archived];
}

export interface SubscribeRequest {
  streams: Array<{ name: string; description?: string }>;
  /** Ids or emails, as the request names them; none means the caller alone. */
  principals?: Array<string | number> | undefined;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean | undefined;
  streamPostPolicy?: number | undefined;
  messageRetentionDays?: number | null | undefined;
  authorizationErrorsFatal: boolean;
  announce?: boolean | undefined;
  /** The group settings of the streams created (levels 161-357), as given; checked first. */
  groupSettings?: StreamGroupSettingChanges | undefined;
  /** Adds the stream(s) created to the default streams (feature level 200). */
  isDefaultStream?: boolean | undefined;
  /** The reported feature level, where the answer or the checks differ by level. */
  featureLevel?: number | undefined;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

async function checkCanCreate(q: Q, user: UserRow, realm: RealmRow, req: SubscribeRequest): Promise<void> {
  if (!await hasRealmGroupPermission(q, realm, user, req.inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group')) {
    throw insufficientPermission();
  }
  if (req.isDefaultStream && !isAdminRole(user.role)) throw insufficientPermission();
  if (req.isDefaultStream && req.inviteOnly) throw badRequest('A default stream cannot be private.');
  if (req.isWebPublic) {
    if (!webPublicStreamsEnabled(realm)) throw badRequest('Web-public streams are not enabled.');
    // can_create_web_public_channel_group (level 280) replaced create_web_public_stream_policy.
    if (!await hasRealmGroupPermission(q, realm, user, 'can_create_web_public_channel_group')) throw insufficientPermission();
  }
  if (req.messageRetentionDays !== undefined && user.role !== Role.OWNER) throw mustBeOwner();
}

/**
 * POST /users/me/subscriptions: creates the streams that do not exist yet, then
 * subscribes the principals to every stream the caller may join. Streams the caller
 * may not join are an error, or listed as `unauthorized` when errors are not fatal.
 *
 * Writer fairness: one request may ask for 1,000 streams (or 10,000 pairs of stream and
 * user), and one transaction over all of it held SQLite's single writer for seconds, so
 * that every organization's sends waited behind it. So the reads and checks run outside
 * any transaction, and the writes in short transactions of at most BATCH_PAIRS pairs
 * (streams created CREATE_BATCH at a time). Each batch's events leave after its own
 * commit, so no client hears of a subscription that is not stored. Unlike Zulip's one
 * transaction, a failure part-way keeps the batches already committed (a retry lists
 * them under already_subscribed).
 */
export async function subscribeRequest(ctx: AppContext, realm: RealmRow, acting: UserRow, req: SubscribeRequest): Promise<SubscribeResult> {
  const afterwards: Array<(ctx: AppContext) => Promise<void>> = [];
  const result = await subscribeWith({
    q: ctx.store.db, write: (fn) => transact(ctx, fn), later: (f) => afterwards.push(f), catchUp: (ids) => catchUpIdle(ctx, ids),
  }, realm, acting, req);
  for (const f of afterwards) await f(ctx).catch((err: unknown) => ctx.log.error({ err }, 'work after commit failed'));
  return result;
}

/**
 * The same inside one transaction: PATCH /users/me/subscriptions, whose add and delete
 * halves commit together as in Zulip (its add half is the caller's own, at most 1,000 pairs).
 */
export function doSubscribeRequest(tx: Tx, realm: RealmRow, acting: UserRow, req: SubscribeRequest): Promise<SubscribeResult> {
  return subscribeWith({ q: tx.db, write: (fn) => fn(tx), later: (f) => tx.later(f), catchUp: async () => 0 }, realm, acting, req);
}

/** Where subscribeWith reads, how it writes (a transaction per batch, or the caller's), and how it queues work for after the commit. */
interface SubscribeIo {
  q: Q;
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  later(fn: (ctx: AppContext) => Promise<void>): void;
  /** Idle people's missing rows, made ahead in steps of their own where the writes are batched. */
  catchUp(userIds: number[]): Promise<number>;
}

async function subscribeWith(io: SubscribeIo, realm: RealmRow, acting: UserRow, req: SubscribeRequest): Promise<SubscribeResult> {
  const q = io.q;
  // As Zulip's add_subscriptions_backend: the group is checked before anything else.
  const groupSettings: Partial<Record<StreamGroupSettingName, GroupSettingValue>> = {};
  for (const [key, change] of Object.entries(req.groupSettings ?? {})) {
    const name = key as StreamGroupSettingName;
    groupSettings[name] = await accessGroupSettingValue(q, acting, change.new, name, streamSettingConfig(name, req.featureLevel ?? 0));
  }
  const principals = req.principals && req.principals.length > 0 ? await accessPrincipals(q, acting, req.principals, req.featureLevel) : [];
  if (req.isWebPublic && req.inviteOnly) throw badRequest('Invalid parameters');
  const wanted = new Map<string, { name: string; description?: string }>();
  for (const s of req.streams) {
    checkStreamName(s.name);
    if (!wanted.has(s.name.toLowerCase())) wanted.set(s.name.toLowerCase(), s);
  }
  const targets = principals.length > 0 ? principals : [acting];
  checkSubscriptionPairs(wanted.size, targets.length);
  const level = req.featureLevel ?? 0;
  const existing = await withArchived(q, realm.id, [...wanted.values()].map((s) => s.name), level);
  const existingNames = new Set(existing.map((s) => s.name.toLowerCase()));
  const missing = [...wanted.values()].filter((s) => !existingNames.has(s.name.toLowerCase()));
  if (missing.length > 0) await checkCanCreate(q, acting, realm, req);
  const actingSubs = await subscriptions.mapActiveOfUser(q, acting.id, existing.map((s) => s.id));
  const authorized: StreamRow[] = [];
  const unauthorized: StreamRow[] = [];
  for (const s of existing) {
    const ok = canSeeStream(acting, s, actingSubs.get(s.id) ?? null, level >= ARCHIVED_SUBSCRIPTIONS_LEVEL)
      || await streamGroupGrants(q, acting, s, realm, level, principals.length > 0 ? 'others' : 'self');
    (ok ? authorized : unauthorized).push(s);
  }
  if (unauthorized.length > 0 && req.authorizationErrorsFatal) {
    throw badRequest(`Unable to access stream (${unauthorized[0]!.name}).`);
  }
  // Level 341: the organization's can_add_subscribers_group; from level 342 a stream's own
  // can_add_subscribers_group (and its channel administrators) may add others to it too.
  if (principals.length > 0 && !await hasRealmGroupPermission(q, realm, acting, 'can_add_subscribers_group')) {
    let allowed = level >= 342 && existing.length > 0 && missing.length === 0;
    for (const s of existing) if (allowed) allowed = await streamGroupGrants(q, acting, s, realm, level, 'others');
    if (!allowed) throw insufficientPermission();
  }
  const created: StreamRow[] = [];
  for (let i = 0; i < missing.length; i += CREATE_BATCH) {
    created.push(...await io.write(async (tx) => {
      const out: StreamRow[] = [];
      for (const s of missing.slice(i, i + CREATE_BATCH)) {
        out.push(await doCreateStream(tx, realm, {
          name: s.name, description: s.description ?? '', inviteOnly: req.inviteOnly, isWebPublic: req.isWebPublic,
          historyPublicToSubscribers: req.historyPublicToSubscribers ?? null, streamPostPolicy: req.streamPostPolicy ?? 1,
          messageRetentionDays: req.messageRetentionDays ?? null, groupSettings,
          creatorId: acting.id,
        }));
        // Only the streams this request creates become default (Zulip's list_to_streams).
        if (req.isDefaultStream) await doAddDefaultStream(tx, out[out.length - 1]!);
      }
      return out;
    }));
  }
  const subscribed: SubPair[] = [];
  const alreadySubscribed: SubPair[] = [];
  await io.catchUp(idleIds(targets));
  for (const [streamPart, userPart] of pairBatches([...authorized, ...created], targets)) {
    const r = await io.write((tx) => doAddSubscriptions(tx, streamPart, userPart));
    subscribed.push(...r.subscribed);
    alreadySubscribed.push(...r.alreadySubscribed);
  }
  const outcome = { realm, acting, created, subscribed, announce: req.announce ?? false };
  io.later((ctx) => sendSubscriptionNotices(ctx, outcome));
  const result: SubscribeResult = { subscribed: {}, already_subscribed: {} };
  // Level 289: users are keyed by their id, not their email.
  const key = (u: UserRow) => ((req.featureLevel ?? 122) >= 289 ? String(u.id) : u.email);
  for (const p of subscribed) (result.subscribed[key(p.user)] ??= []).push(p.stream.name);
  for (const p of alreadySubscribed) (result.already_subscribed[key(p.user)] ??= []).push(p.stream.name);
  if (!req.authorizationErrorsFatal) result.unauthorized = unauthorized.map((s) => s.name);
  return result;
}

/**
 * Soft-deactivated people among `users`: their missing rows are made before their
 * subscriptions change (repos/subscriptions.ts), and someone an import left far behind
 * would hold a batch's transaction for seconds.
 */
const idleIds = (users: UserRow[]): number[] => users.filter((u) => u.long_term_idle === 1).map((u) => u.id);

/** Pairs (stream, user) written per transaction; about 10 ms of the writer each. */
export const BATCH_PAIRS = 100;
const CREATE_BATCH = 25;

function checkSubscriptionPairs(streamCount: number, userCount: number): void {
  if (streamCount * userCount > LIST_LIMITS.subscriptionPairs) throw tooManySubscriptions(LIST_LIMITS.subscriptionPairs);
}

/** Streams × users cut into rectangles of at most BATCH_PAIRS pairs. */
export function pairBatches(streamList: StreamRow[], users: UserRow[]): Array<[StreamRow[], UserRow[]]> {
  const out: Array<[StreamRow[], UserRow[]]> = [];
  const usersPer = Math.min(users.length, BATCH_PAIRS);
  const streamsPer = Math.max(1, Math.floor(BATCH_PAIRS / Math.max(1, usersPer)));
  for (let u = 0; u < users.length; u += usersPer) {
    for (let s = 0; s < streamList.length; s += streamsPer) out.push([streamList.slice(s, s + streamsPer), users.slice(u, u + usersPer)]);
  }
  return out;
}

/**
 * DELETE /users/me/subscriptions. A stream the caller may not know of is reported as
 * missing, exactly like one that does not exist; only administrators act for others.
 * Checked outside any transaction, written in batches as subscribeRequest is.
 */
export async function unsubscribeRequest(ctx: AppContext, acting: UserRow, names: string[], principals: Array<string | number> | undefined): Promise<{ removed: string[]; not_removed: string[] }> {
  const level = ctx.config.featureLevel;
  const targets = principals && principals.length > 0 ? await accessPrincipals(ctx.store.db, acting, principals, level) : [];
  const list = await streamsToLeave(ctx.store.db, acting, names, targets, level);
  const removed: string[] = [];
  const notRemoved: string[] = [];
  await catchUpIdle(ctx, idleIds(targets.length > 0 ? targets : [acting]));
  for (const [streamPart, userPart] of pairBatches(list, targets.length > 0 ? targets : [acting])) {
    const r = await transact(ctx, (tx) => doRemoveSubscriptions(tx, streamPart, userPart));
    removed.push(...r.removed.map((p) => p.stream.name));
    notRemoved.push(...r.notSubscribed.map((p) => p.stream.name));
  }
  return { removed, not_removed: notRemoved };
}

/** The same inside the caller's transaction (PATCH /users/me/subscriptions). */
export async function doUnsubscribeRequest(tx: Tx, acting: UserRow, names: string[], principals: UserRow[] | undefined): Promise<{ removed: string[]; not_removed: string[] }> {
  const targets = principals && principals.length > 0 ? principals : [];
  const list = await streamsToLeave(tx.db, acting, names, targets, tx.featureLevel);
  const { removed, notSubscribed } = await doRemoveSubscriptions(tx, list, targets.length > 0 ? targets : [acting]);
  return { removed: removed.map((p) => p.stream.name), not_removed: notSubscribed.map((p) => p.stream.name) };
}

/**
 * Whether removing `target` counts as acting for someone else: from feature level 145, as
 * Zulip's user_directly_controls_user, a user's own bots count as themselves.
 */
function controlsDirectly(acting: UserRow, target: UserRow, featureLevel: number): boolean {
  if (target.id === acting.id) return true;
  return featureLevel >= OWN_BOTS_UNSUBSCRIBABLE && target.is_bot === 1 && target.bot_owner_id === acting.id;
}

/** The feature level from which users may unsubscribe the bots they own. */
export const OWN_BOTS_UNSUBSCRIBABLE = 145;

async function streamsToLeave(q: Q, acting: UserRow, names: string[], targets: UserRow[], featureLevel: number): Promise<StreamRow[]> {
  const trimmed = names.map((raw) => raw.trim());
  const found = new Map((await withArchived(q, acting.realm_id, trimmed, featureLevel)).map((s) => [s.name.toLowerCase(), s]));
  const subs = await subscriptions.mapActiveOfUser(q, acting.id, [...found.values()].map((s) => s.id));
  const list: StreamRow[] = [];
  // Level 349: metadata access through the stream's groups (channel administrators among them).
  const groups = await metadataGroupsFor(q, acting, featureLevel);
  for (const name of trimmed) {
    const stream = found.get(name.toLowerCase());
    if (!stream || !canSeeStreamMetadata(acting, stream, subs.get(stream.id) ?? null, featureLevel >= ARCHIVED_SUBSCRIPTIONS_LEVEL, groups)) throw streamDoesNotExist(name);
    if (!list.some((s) => s.id === stream.id)) list.push(stream);
  }
  if (targets.some((u) => !controlsDirectly(acting, u, featureLevel))) {
    // Zulip's can_remove_subscribers_from_stream (feature level 161): administrators, and
    // members of each stream's can_remove_subscribers_group (administrators by default).
    // Below 161 the refusal keeps the words Parley answered before the setting existed.
    for (const stream of list) {
      if (!(await canRemoveSubscribers(q, acting, stream, subs.get(stream.id) ?? null, featureLevel, await realms.findById(q, acting.realm_id)))) {
        throw featureLevel >= CAN_REMOVE_SUBSCRIBERS_PARAM_LEVEL ? insufficientPermission() : mustBeAdmin();
      }
    }
  }
  checkSubscriptionPairs(list.length, Math.max(1, targets.length));
  return list;
}

/**
 * Zulip 10's stream group permissions for subscribing: channel administrators (325) and
 * members of can_add_subscribers_group (342) may add anyone, themselves included, even to a
 * private stream they are not in (349); members of can_subscribe_group (357) may join. Guests
 * never (neither setting allows role:everyone).
 */
async function streamGroupGrants(q: Q, acting: UserRow, stream: StreamRow, realm: RealmRow, level: number, who: 'self' | 'others'): Promise<boolean> {
  if (acting.role === Role.GUEST || (stream.deactivated === 1 && level < ARCHIVED_SUBSCRIPTIONS_LEVEL)) return false;
  const waiting = realmSettings(realm.settings).waiting_period_threshold;
  const has = (name: 'can_add_subscribers_group' | 'can_administer_channel_group' | 'can_subscribe_group') =>
    userHasGroupSettingValue(q, acting, streamSettingValue(stream, name), STREAM_PERMISSION_SETTINGS[name], waiting);
  if (level >= 342 && await has('can_add_subscribers_group')) return true;
  if (level >= 349 && await has('can_administer_channel_group')) return true;
  return who === 'self' && level >= 357 && await has('can_subscribe_group');
}
