import type { Q } from '../store/rows.js';
import { exportReads } from '../store/repos/export.js';
import { realms } from '../store/repos/realms.js';
import { RecipientType } from '../lib/recipient-type.js';
import {
  toZulipRealm, toZulipRealmUserDefault, toZulipStream, toZulipSubscription, toZulipUser, toZulipUserGroup,
} from '../import/zulip-columns.js';
import { ImportError, type Row } from '../import/source.js';

/** realm.json's tables that fit in memory (the organization's size, not its history's). */
export interface RealmTablesRead {
  tables: Record<string, Row[]>;
  realmRow: Row;
  /** Users (system bots among them) by id: for email in files' records. */
  emailOf: Map<number, string>;
}

const bool = (v: number): boolean => v === 1;
// Not Math.max(...ids): a spread of a big table overflows the stack.
const maxId = (rows: Array<{ id: number }>): number => rows.reduce((m, r) => Math.max(m, r.id), 0);
const firstId = (json: string): number => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) && Number.isSafeInteger(v[0]) ? v[0] as number : -1;
  } catch {
    return -1;
  }
};

/**
 * Zulip keeps who is in a conversation as subscriptions to its recipient (its importer
 * recomputes group conversations' hashes from them): everyone to their own personal
 * recipient and each member to a group conversation's, beside the stream subscriptions.
 */
class Conversations {
  private nextRecipient: number;
  private nextHuddle: number;
  readonly huddleByHash = new Map<string, number>();
  readonly recipients: Row[] = [];
  readonly huddles: Row[] = [];

  constructor(recipients: Array<{ id: number; type: number; type_id: number }>, huddles: Array<{ id: number; huddle_hash: string; recipient_id: number | null }>,
    readonly personal: Map<number, number>, readonly streamRecipient: Map<number, number>) {
    this.nextRecipient = Math.max(maxId(recipients), huddles.reduce((m, h) => Math.max(m, h.recipient_id ?? 0), 0)) + 1;
    this.nextHuddle = maxId(huddles) + 1;
    for (const r of recipients) this.recipients.push({ id: r.id, type: r.type, type_id: r.type_id });
    for (const h of huddles) this.addHuddle(h.id, h.huddle_hash, h.recipient_id!);
  }

  private addHuddle(id: number, hash: string, recipientId: number): void {
    this.huddleByHash.set(hash, recipientId);
    this.huddles.push({ id, huddle_hash: hash, recipient: recipientId, group_size: hash.split(',').length });
    this.recipients.push({ id: recipientId, type: RecipientType.HUDDLE, type_id: id });
  }

  /**
   * A private conversation's recipient from Parley's `to` (the others; the owner alone for a
   * note to self); a group conversation nobody wrote to yet gets its recipient here, as
   * Zulip makes one for a draft or scheduled message.
   */
  privateRecipient(owner: number, toJson: string): number | null {
    let to: unknown;
    try {
      to = JSON.parse(toJson);
    } catch {
      return null;
    }
    if (!Array.isArray(to) || !to.every((x) => Number.isSafeInteger(x))) return null;
    const ids = [...new Set([...(to as number[]), owner])].sort((a, b) => a - b);
    if (ids.length <= 2) return this.personal.get(ids.find((id) => id !== owner) ?? owner) ?? null;
    const hash = ids.join(',');
    const known = this.huddleByHash.get(hash);
    if (known !== undefined) return known;
    const recipientId = this.nextRecipient++;
    this.addHuddle(this.nextHuddle++, hash, recipientId);
    return recipientId;
  }
}

export async function readRealmTables(q: Q, realmId: number): Promise<RealmTablesRead> {
  const realm = await realms.findById(q, realmId);
  if (!realm) throw new ImportError(`no organization with id ${realmId}`);
  const users = await exportReads.users(q, realmId);
  const streams = await exportReads.streams(q, realmId);
  const recipientRows = await exportReads.userAndStreamRecipients(q, realmId);
  const personal = new Map(recipientRows.filter((r) => r.type === RecipientType.PERSONAL).map((r) => [r.type_id, r.id]));
  const streamRecipient = new Map(recipientRows.filter((r) => r.type === RecipientType.STREAM).map((r) => [r.type_id, r.id]));
  const conversations = new Conversations(recipientRows, await exportReads.huddles(q, realmId), personal, streamRecipient);
  const groups = await exportReads.userGroups(q, realmId);
  const groupIdByName = new Map(groups.filter((g) => g.is_system_group === 1).map((g) => [g.name, g.id]));
  const active = new Map(users.map((u) => [u.id, u.is_active === 1]));

  const tables: Record<string, Row[]> = {};
  const realmRow = toZulipRealm(realm, groupIdByName);
  tables.zerver_realm = [realmRow];
  tables.zerver_realmuserdefault = [toZulipRealmUserDefault(realm)];
  // Zulip's cross-realm bots are the server's; Parley's are each organization's own. Either way the importer makes its own and maps them by email.
  tables.zerver_userprofile = users.filter((u) => u.is_system_bot !== 1).map((u) => toZulipUser(u, personal.get(u.id) ?? null));
  tables.zerver_userprofile_crossrealm = users.filter((u) => u.is_system_bot === 1).map((u) => ({ id: u.id, email: u.email, recipient_id: personal.get(u.id) ?? null }));
  tables.zerver_userprofile_mirrordummy = [];
  tables.zerver_stream = streams.map(toZulipStream);

  const drafts = await exportReads.drafts(q, realmId);
  tables.zerver_draft = drafts.map((d) => ({
    id: d.id, user_profile: d.user_id,
    recipient: d.type === 'stream' ? streamRecipient.get(firstId(d.recipient)) ?? null
      : d.type === 'private' ? conversations.privateRecipient(d.user_id, d.recipient) : null,
    topic: d.topic, content: d.content, last_edit_time: d.last_edit_time,
  }));
  const scheduled = await exportReads.scheduledMessages(q, realmId);
  tables.zerver_scheduledmessage = scheduled.map((m) => ({
    id: m.id, sender: m.sender_id, realm: m.realm_id, stream: m.stream_id,
    recipient: m.type === 'stream' ? streamRecipient.get(m.stream_id ?? -1) ?? null : conversations.privateRecipient(m.sender_id, m.recipient),
    subject: m.topic, content: m.content, // The client's name until the export numbers the clients (zerver_client).
    rendered_content: m.rendered_content, sending_client: m.client,
    scheduled_timestamp: m.scheduled_timestamp, read_by_sender: bool(m.read_by_sender), delivered: bool(m.delivered),
    delivered_message: m.delivered_message_id, failed: bool(m.failed), failure_message: m.failure_message, has_attachment: false,
    // Zulip's ScheduledMessage.SEND_LATER.
    delivery_type: 1,
  }));

  const subscriptions = await exportReads.subscriptions(q, realmId);
  let nextSubscription = maxId(subscriptions) + 1;
  tables.zerver_subscription = subscriptions.map((s) => toZulipSubscription(s, streamRecipient.get(s.stream_id)!, active.get(s.user_id) ?? false));
  const conversationSubscription = (userId: number, recipientId: number): Row => ({
    id: nextSubscription++, user_profile: userId, recipient: recipientId, active: true, is_user_active: active.get(userId) ?? false,
    is_muted: false, color: '#c2c2c2', pin_to_top: false, desktop_notifications: null, audible_notifications: null,
    push_notifications: null, email_notifications: null, wildcard_mentions_notify: null,
  });
  for (const [userId, recipientId] of personal) tables.zerver_subscription.push(conversationSubscription(userId, recipientId));
  for (const [hash, recipientId] of conversations.huddleByHash) {
    for (const id of hash.split(',').map(Number)) tables.zerver_subscription.push(conversationSubscription(id, recipientId));
  }
  tables.zerver_recipient = conversations.recipients;
  tables.zerver_huddle = conversations.huddles;

  tables.zerver_defaultstream = (await exportReads.defaultStreams(q, realmId)).map((d, i) => ({ id: i + 1, realm: d.realm_id, stream: d.stream_id }));
  tables.zerver_realmemoji = (await exportReads.realmEmoji(q, realmId)).map((e) => ({
    id: e.id, realm: e.realm_id, name: e.name, author: e.author_id, file_name: e.file_name, is_animated: bool(e.is_animated), deactivated: bool(e.deactivated),
  }));
  tables.zerver_realmfilter = (await exportReads.linkifiers(q, realmId)).map((f) => ({
    id: f.id, realm: f.realm_id, pattern: f.pattern, url_template: f.url_template, url_format_string: f.url_format_string, order: f.position,
  }));
  tables.zerver_customprofilefield = (await exportReads.profileFields(q, realmId)).map((f) => ({
    id: f.id, realm: f.realm_id, name: f.name, hint: f.hint, field_type: f.field_type, field_data: f.field_data, order: f.order,
    display_in_profile_summary: bool(f.display_in_profile_summary), required: bool(f.required), editable_by_user: bool(f.editable_by_user),
  }));
  tables.zerver_customprofilefieldvalue = (await exportReads.profileValues(q, realmId)).map((v, i) => ({
    id: i + 1, user_profile: v.user_id, field: v.field_id, value: v.value, rendered_value: v.rendered_value,
  }));
  const groupRows = groups.map(toZulipUserGroup);
  tables.zerver_usergroup = groupRows.map((g) => g.usergroup);
  tables.zerver_namedusergroup = groupRows.map((g) => g.named);
  tables.zerver_usergroupmembership = (await exportReads.groupMembers(q, realmId)).map((m, i) => ({ id: i + 1, user_group: m.group_id, user_profile: m.user_id }));
  tables.zerver_groupgroupmembership = (await exportReads.groupSubgroups(q, realmId)).map((m, i) => ({ id: i + 1, supergroup: m.supergroup_id, subgroup: m.subgroup_id }));
  tables.zerver_alertword = (await exportReads.alertWords(q, realmId)).map((w) => ({ id: w.id, realm: w.realm_id, user_profile: w.user_id, word: w.word }));
  tables.zerver_usertopic = (await exportReads.userTopics(q, realmId)).map((t, i) => ({
    id: i + 1, user_profile: t.user_id, stream: t.stream_id, recipient: streamRecipient.get(t.stream_id) ?? null, topic_name: t.topic,
    last_updated: t.last_updated, visibility_policy: t.visibility_policy,
  }));
  tables.zerver_muteduser = (await exportReads.mutedUsers(q, realmId)).map((m) => ({ id: m.id, user_profile: m.user_id, muted_user: m.muted_user_id, date_muted: m.date_muted }));
  tables.zerver_userstatus = (await exportReads.userStatuses(q, realmId)).map((s, i) => ({
    id: i + 1, user_profile: s.user_id, timestamp: s.timestamp, client: null, status_text: s.status_text,
    emoji_name: s.emoji_name, emoji_code: s.emoji_code, reaction_type: s.reaction_type,
  }));
  tables.zerver_service = (await exportReads.botServices(q, realmId)).map((s) => ({
    // No token: like an API key it is a credential, and Zulip's importer makes a new one anyway.
    id: s.id, user_profile: s.bot_id, name: s.name, base_url: s.base_url, interface: s.interface,
  }));
  tables.zerver_botstoragedata = (await exportReads.botStorage(q, realmId)).map((s) => ({ id: s.id, bot_profile: s.user_id, key: s.key, value: s.value }));
  tables.zerver_savedsnippet = (await exportReads.savedSnippets(q, realmId)).map((x) => ({
    id: x.id, realm: realmId, user_profile: x.user_id, title: x.title, content: x.content, date_created: x.date_created,
  }));
  tables.zerver_userpresence = (await exportReads.presences(q, realmId)).map((p, i) => ({
    id: i + 1, user_profile: p.user_id, realm: p.realm_id, last_active_time: p.last_active_time, last_connected_time: p.last_connected_time,
    last_update_id: p.last_update_id,
  }));
  return { tables, realmRow, emailOf: new Map(users.map((u) => [u.id, u.delivery_email])) };
}
