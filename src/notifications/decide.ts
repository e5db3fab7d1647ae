import type { AppContext } from '../context.js';
import { missedMessages, notificationCursor, type NewMissedMessage, type UndecidedMessage } from '../store/repos/missed-messages.js';
import { userGroups } from '../store/repos/user-groups.js';
import { recursiveSubgroups } from '../lib/group-graph.js';
import { userSettings } from '../lib/user-settings.js';
import { decide, groupMentionOf, mentionsIn, type StreamSettings } from './rules.js';
import { awayState, isAway } from './away.js';
import { WELCOME_BOT } from '../lib/system-bots.js';

/** Messages read per batch. */
const BATCH = 25;
/**
 * Notifications written per transaction, at most (a message's are never split): the
 * transaction holds the store's writer, which the sends share, so it is kept short.
 */
const ROWS_PER_TX = 1000;
/**
 * A missing id before newer messages may be a send still committing (PostgreSQL takes ids
 * before commit): the decider waits for it this long, then takes it for rolled back or deleted.
 */
const GAP_WAIT_SECS = 10;
/**
 * Messages sent longer ago than this are history, not news: an import's (which arrive with
 * their original times, into an organization still being made) are never notified, nor are
 * messages a decider fell this far behind on.
 */
const HISTORY_SECS = 24 * 3600;
/** Messages read per batch while walking history: nothing is decided for them, so many at once. */
const HISTORY_BATCH = 1000;
/** Followed topics (Zulip's UserTopic FOLLOWED) exist from this feature level. */
const FOLLOWED_TOPICS_LEVEL = 219;

const isHistory = (m: UndecidedMessage, now: number): boolean => m.realm_deactivated === 1 || m.date_sent < now - HISTORY_SECS;

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

/** The messages after `from` up to the first gap that may still be filling. */
function contiguous(msgs: UndecidedMessage[], from: number, now: number): UndecidedMessage[] {
  let expected = from + 1;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    if (m.id !== expected && m.date_sent > now - GAP_WAIT_SECS) return msgs.slice(0, i);
    expected = m.id + 1;
  }
  return msgs;
}

async function groupMembers(ctx: AppContext, realmId: number, groupIds: number[], edgesOf: Map<number, Array<{ supergroup_id: number; subgroup_id: number }>>): Promise<Map<number, Set<number>>> {
  let edges = edgesOf.get(realmId);
  if (!edges) edgesOf.set(realmId, (edges = await userGroups.listSubgroupEdgesByRealm(ctx.store.db, realmId)));
  const out = new Map<number, Set<number>>();
  for (const g of groupIds) {
    const members = new Set<number>();
    for (const sub of recursiveSubgroups(edges, [g])) for (const u of await userGroups.listMemberIds(ctx.store.db, sub)) members.add(u);
    out.set(g, members);
  }
  return out;
}

/**
 * One batch of the decider: the messages after the cursor, in id order, and for each of
 * their recipients whether an email and a push are due (src/notifications/rules.ts) and
 * whether they are away. The rows and the cursor's move are one transaction, guarded by the
 * node's lease on the cursor: a crash loses nothing and no message is decided twice.
 * Answers how many notifications it stored, and whether more messages may be waiting;
 * null when another node holds the cursor.
 */
export async function decideBatch(ctx: AppContext, node: string, now: number): Promise<{ stored: number; more: boolean } | null> {
  const db = ctx.store.db;
  // Nothing new: a read, so that an idle server's look writes nothing (the lease is a write).
  const [next] = await missedMessages.messagesAfter(db, await notificationCursor.position(db), 1);
  if (!next) return { stored: 0, more: false };
  if (!(await notificationCursor.lease(db, node, now, now + 30))) return null;
  const from = await notificationCursor.position(db);
  const limit = isHistory(next, now) ? HISTORY_BATCH : BATCH;
  const fetched = await missedMessages.messagesAfter(db, from, limit);
  const scanned = contiguous(fetched, from, now);
  if (scanned.length === 0) return { stored: 0, more: false };
  const msgs = scanned.filter((m) => !isHistory(m, now));
  const ids = msgs.map((m) => m.id);
  const streamIds = [...new Set(msgs.flatMap((m) => (m.stream_id === null ? [] : [m.stream_id])))];
  const [recipients, subs, policies, mutes] = await Promise.all([
    missedMessages.recipientsOf(db, ids), missedMessages.subscriptionsOf(db, streamIds),
    missedMessages.topicPoliciesOf(db, streamIds), missedMessages.mutesOf(db, [...new Set(msgs.map((m) => m.sender_id))]),
  ]);
  const stored = await missedMessages.settingsOf(db, [...new Set(recipients.map((r) => r.user_id))]);
  const settingsOf = new Map<number, ReturnType<typeof userSettings>>();
  const settingsFor = (userId: number): ReturnType<typeof userSettings> => {
    let parsed = settingsOf.get(userId);
    if (!parsed) settingsOf.set(userId, (parsed = userSettings(stored.get(userId) ?? '{}')));
    return parsed;
  };
  const subOf = new Map(subs.map((s) => [`${s.user_id}:${s.stream_id}`, s]));
  const policyOf = new Map(policies.map((p) => [`${p.user_id}:${p.stream_id}:${p.topic_lower}`, p.visibility_policy]));
  const muted = new Set(mutes.map((m) => `${m.user_id}:${m.muted_user_id}`));
  const byMessage = new Map<number, typeof recipients>();
  for (const r of recipients) {
    const list = byMessage.get(r.message_id);
    if (list) list.push(r);
    else byMessage.set(r.message_id, [r]);
  }
  const followedTopics = ctx.config.featureLevel >= FOLLOWED_TOPICS_LEVEL;
  const pushOn = Boolean(ctx.config.pushBouncerUrl);
  const edges = new Map<number, Array<{ supergroup_id: number; subgroup_id: number }>>();
  type Candidate = { m: UndecidedMessage; userId: number; email: NewMissedMessage['trigger'] | null; push: NewMissedMessage['trigger'] | null; onlinePush: boolean; period: number; group: number | null };
  const candidates: Candidate[] = [];
  for (const m of msgs) {
    // Zulip's Welcome Bot sends with disable_external_notifications: it is read in the app.
    if (m.sender_is_system_bot === 1 && m.sender_email === WELCOME_BOT.email) continue;
    const mentions = mentionsIn(m.rendered_content);
    const groupOf = mentions.groupIds.length > 0 ? groupMentionOf(mentions.userIds, await groupMembers(ctx, m.realm_id, mentions.groupIds, edges)) : new Map<number, number>();
    for (const r of byMessage.get(m.id) ?? []) {
      const settings = settingsFor(r.user_id);
      const sub = m.stream_id === null ? undefined : subOf.get(`${r.user_id}:${m.stream_id}`);
      const stream: StreamSettings | null = m.stream_id === null ? null : {
        isMuted: sub?.is_muted === 1, email: bool(sub?.email_notifications ?? null), push: bool(sub?.push_notifications ?? null), wildcard: bool(sub?.wildcard_mentions_notify ?? null),
      };
      const d = decide({
        userId: r.user_id, senderId: m.sender_id, flags: r.flags, settings, stream, followedTopics,
        topicPolicy: m.stream_id === null ? 0 : policyOf.get(`${r.user_id}:${m.stream_id}:${m.topic_lower}`) ?? 0,
        senderMuted: muted.has(`${r.user_id}:${m.sender_id}`),
      });
      const push = pushOn ? d.push : null;
      if (d.email === null && push === null) continue;
      const period = Number(settings.email_notifications_batching_period_seconds) || 120;
      const group = d.email === 'mentioned' || push === 'mentioned' ? groupOf.get(r.user_id) ?? null : null;
      candidates.push({ m, userId: r.user_id, email: d.email, push, onlinePush: settings.enable_online_push_notifications, period, group });
    }
  }
  // Only those who would be notified if away are looked up (as Zulip's get_active_presence_idle_user_ids).
  const candidateIds = [...new Set(candidates.map((c) => c.userId))];
  const pushers = [...new Set(candidates.flatMap((c) => (c.push ? [c.userId] : [])))];
  // A push only for users with a device (Zulip's push_device_registered).
  const [state, devices] = await Promise.all([awayState(ctx, candidateIds), missedMessages.withDevices(db, pushers)]);
  const rows: NewMissedMessage[] = [];
  let to = scanned[scanned.length - 1]!.id;
  for (const [i, c] of candidates.entries()) {
    if (rows.length >= ROWS_PER_TX && c.m.id !== candidates[i - 1]!.m.id) {
      to = candidates[i - 1]!.m.id;
      break;
    }
    const away = isAway(state, c.userId, c.m.date_sent);
    const base = { user_id: c.userId, message_id: c.m.id, mentioned_user_group_id: c.group };
    if (c.email && away) rows.push({ ...base, kind: 'email', trigger: c.email, due: c.m.date_sent + c.period });
    if (c.push && devices.has(c.userId) && (away || c.onlinePush)) rows.push({ ...base, kind: 'push', trigger: c.push, due: c.m.date_sent });
  }
  const moved = await db.transaction().execute(async (trx) => {
    if (!(await notificationCursor.advance(trx, node, from, to))) return false;
    await missedMessages.insert(trx, rows);
    return true;
  });
  if (!moved) return null;
  // Stopped at a gap still filling: the next look (the timer's) goes on.
  return { stored: rows.length, more: to < scanned[scanned.length - 1]!.id || (fetched.length === limit && scanned.length === fetched.length) };
}
