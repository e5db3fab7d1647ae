/**
 * Streams with their subscribers, default streams, and the conversations messages are
 * addressed to (Zulip's recipients: a person, a stream, or a group of people).
 */
import type { Tx } from '../../actions/transaction.js';
import { doCreateStream } from '../../actions/stream-create.js';
import { streams } from '../../store/repos/streams.js';
import { huddles } from '../../store/repos/huddles.js';
import { recipients } from '../../store/repos/recipients.js';
import { realmImport } from '../../store/repos/realm-import.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from '../../lib/limits.js';
import { ImportError, type Row } from '../source.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';
import { archivedNameLower, streamFromZulip, subscriptionFromZulip } from '../zulip-columns.js';
import { STREAM_GROUP_SETTING_NAMES } from '../../lib/stream-group-settings.js';
import { anonymousGroups, mapIdOf } from './groups-map.js';

const SUBSCRIPTION_COLUMNS = ['user_id', 'stream_id', 'active', 'is_muted', 'color', 'pin_to_top', 'desktop_notifications',
  'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify'] as const;

const clip = (text: string, max: number) => [...text].slice(0, max).join('');

export async function loadStreams(tx: Tx, s: LoadState): Promise<void> {
  const rows = tableOf(s, 'zerver_stream');
  s.progress.phase('streams', rows.length);
  const seen = new Set<string>();
  const recipientOf = new Map<number, number>();
  for (const row of rows) {
    const where = `stream ${JSON.stringify(row.id)}`;
    const name = clip(field.str(row, 'name', where).replace(/\p{Cc}/gu, ' ').trim(), MAX_STREAM_NAME_LENGTH);
    if (seen.has(name.toLowerCase())) throw new ImportError(`two streams of the export are named ${JSON.stringify(name)}`);
    seen.add(name.toLowerCase());
    const mapped = streamFromZulip({ ...row, name }, mapIdOf(s), anonymousGroups(s));
    const stream = await doCreateStream(tx, s.realm, {
      name,
      description: clip(mapped.description.replace(/\r\n|\p{Cc}/gu, ' '), MAX_STREAM_DESCRIPTION_LENGTH),
      inviteOnly: mapped.invite_only === 1,
      isWebPublic: mapped.is_web_public === 1,
      historyPublicToSubscribers: mapped.history_public_to_subscribers === 1,
      creatorId: mapped.creator_id ?? null,
    });
    const groupSettings = Object.fromEntries(STREAM_GROUP_SETTING_NAMES.flatMap((k) => (mapped[k] === null ? [] : [[k, mapped[k]]])));
    await streams.update(tx.db, stream.id, {
      ...groupSettings,
      stream_post_policy: mapped.stream_post_policy, message_retention_days: mapped.message_retention_days,
      date_created: mapped.date_created, deactivated: mapped.deactivated, is_recently_active: mapped.is_recently_active,
      // An archived stream frees its name, as archiving one here does.
      ...(mapped.deactivated === 1 ? { name_lower: archivedNameLower(stream.id, name) } : {}),
    });
    s.streams.set(field.int(row, 'id', 'zerver_stream'), stream.id);
    recipientOf.set(stream.id, stream.recipient_id!);
    if (stream.invite_only === 1) s.privateMembers.set(stream.id, new Set());
    s.progress.tick();
  }
  s.progress.done();
  await loadRecipients(tx, s, recipientOf);
  await loadSubscriptions(tx, s);
  for (const row of tableOf(s, 'zerver_defaultstream')) {
    const streamId = s.streams.get(row.stream, 'a default stream');
    await streams.addDefault(tx.db, s.realm.id, streamId);
  }
}

/** The export's recipient ids onto Parley's: people and streams have theirs already, groups get theirs here. */
async function loadRecipients(tx: Tx, s: LoadState, recipientOf: ReadonlyMap<number, number>): Promise<void> {
  const rows = tableOf(s, 'zerver_recipient');
  const huddleMembers = new Map<number, number[]>();
  const typeById = new Map(rows.map((r) => [r.id, r]));
  for (const sub of tableOf(s, 'zerver_subscription')) {
    const r = typeById.get(sub.recipient);
    if (r?.type === RecipientType.HUDDLE && s.users.has(sub.user_profile)) {
      const list = huddleMembers.get(Number(r.id)) ?? [];
      list.push(s.users.get(sub.user_profile, 'a group conversation'));
      huddleMembers.set(Number(r.id), list);
    }
  }
  const personal = await recipients.mapPersonalOf(tx.db, [...s.users.entries()].map(([, id]) => id));
  for (const row of rows) {
    const where = `recipient ${JSON.stringify(row.id)}`;
    const id = field.int(row, 'id', 'zerver_recipient');
    const type = field.int(row, 'type', where);
    if (type === RecipientType.PERSONAL) {
      const userId = s.users.get(row.type_id, where);
      s.recipients.set(id, { id: personal.get(userId)!, type: RecipientType.PERSONAL, streamId: null, members: [userId] });
    } else if (type === RecipientType.STREAM) {
      const streamId = s.streams.get(row.type_id, where);
      s.recipients.set(id, { id: recipientOf.get(streamId)!, type: RecipientType.STREAM, streamId });
    } else if (type === RecipientType.HUDDLE) {
      const members = [...new Set(huddleMembers.get(id) ?? [])].sort((a, b) => a - b);
      if (members.length < 2) throw new ImportError(`${where}: a group conversation needs two or more members`);
      const hash = members.join(',');
      const known = await huddles.findByHash(tx.db, hash);
      let recipientId = known?.recipient_id ?? null;
      if (recipientId === null) {
        const huddleId = known?.id ?? await huddles.insert(tx.db, hash);
        if (!known) s.madeHuddles.push(huddleId);
        recipientId = await recipients.insert(tx.db, RecipientType.HUDDLE, huddleId);
        await huddles.setRecipient(tx.db, huddleId, recipientId);
      }
      s.recipients.set(id, { id: recipientId, type: RecipientType.HUDDLE, streamId: null, members });
      if (typeof row.type_id === 'number') s.huddles.set(row.type_id, recipientId);
    } else {
      throw new ImportError(`${where} has an unknown type ${type}`);
    }
  }
}

async function loadSubscriptions(tx: Tx, s: LoadState): Promise<void> {
  const out: unknown[][] = [];
  const seen = new Set<string>();
  for (const row of tableOf(s, 'zerver_subscription')) {
    const r = s.recipients.get(Number(row.recipient));
    if (!r || r.type !== RecipientType.STREAM || r.streamId === null) continue;
    const userId = s.users.get(row.user_profile, 'a subscription');
    const key = `${userId},${r.streamId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const sub = subscriptionFromZulip(row as Row);
    out.push([userId, r.streamId, sub.active, sub.is_muted, sub.color, sub.pin_to_top, sub.desktop_notifications,
      sub.audible_notifications, sub.push_notifications, sub.email_notifications, sub.wildcard_mentions_notify]);
    if (sub.active === 1) s.privateMembers.get(r.streamId)?.add(userId);
  }
  await realmImport.insertRows(tx.db, 'subscription', SUBSCRIPTION_COLUMNS, out);
}
