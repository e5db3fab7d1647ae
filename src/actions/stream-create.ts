import crypto from 'node:crypto';
import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { recipients } from '../store/repos/recipients.js';
import { RecipientType } from '../lib/recipient-type.js';
import { badRequest } from '../errors.js';
import { nowSeconds } from '../lib/time.js';
import { renderStreamDescription } from '../markdown/stream-description.js';
import { presentStream } from '../presenters/stream.js';
import { STREAM_POST_POLICY } from '../lib/stream-post-policy.js';
import { streamAudienceIds } from '../reads/stream-audience.js';
import { userGroups } from '../store/repos/user-groups.js';
import { encodeValue, policyForSendGroup, POLICY_SEND_GROUP, type StreamGroupSettingName } from '../lib/stream-group-settings.js';
import type { GroupSettingValue } from '../lib/group-setting-value.js';
import { SystemGroup } from '../lib/system-groups.js';
import { doAddSubscriptions } from './subscription-add.js';
import { MAX_STREAM_NAME_LENGTH, MAX_STREAM_DESCRIPTION_LENGTH } from '../lib/limits.js';


// Zulip rejects characters that are not printable: controls, surrogates, non-characters.
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}]/u;

export function checkStreamName(name: string): void {
  if (name.trim() === '') throw badRequest("Stream name can't be empty!");
  if ([...name].length > MAX_STREAM_NAME_LENGTH) {
    throw badRequest(`Stream name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  }
  const chars = [...name];
  const pos = chars.findIndex((c) => UNPRINTABLE.test(c));
  if (pos >= 0) throw badRequest(`Invalid character in stream name, at position ${pos + 1}!`);
}

/**
 * Descriptions are single-line: Zulip turns newlines into spaces, and so do we with
 * every other control character. Over-long ones are refused with the parameter's name.
 */
export function checkStreamDescription(description: string, varName = 'description'): string {
  if ([...description].length > MAX_STREAM_DESCRIPTION_LENGTH) {
    throw badRequest(`${varName} is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`);
  }
  return description.replace(/\r\n|\p{Cc}/gu, ' ');
}

export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export interface StreamSpec {
  name: string;
  description?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  streamPostPolicy?: number;
  /** null/undefined: Zulip's default (true for public, false for private streams). */
  historyPublicToSubscribers?: boolean | null;
  /** null: organization default; -1: unlimited. */
  messageRetentionDays?: number | null;
  /** Values already checked (accessGroupSettingValue); each missing one takes Zulip's default. */
  groupSettings?: Partial<Record<StreamGroupSettingName, GroupSettingValue>> | undefined;
  /** The user creating it (feature level 254's creator_id); null when the system does. */
  creatorId?: number | null;
}

/** Inserts the stream and its recipient and tells everyone who may see it. Name must be free. */
export async function doCreateStream(tx: Tx, realm: RealmRow, spec: StreamSpec): Promise<StreamRow> {
  checkStreamName(spec.name);
  const inviteOnly = spec.inviteOnly ?? false;
  // Public streams always share history; private ones default to protected history.
  const history = inviteOnly ? (spec.historyPublicToSubscribers ?? false) : true;
  const description = checkStreamDescription(spec.description ?? '');
  const system = await userGroups.systemGroupsByName(tx.db, realm.id);
  const sysId = (name: string) => system.get(name)!.id;
  const given = spec.groupSettings ?? {};
  // can_send_message_group wins over the deprecated stream_post_policy, which follows it.
  const send = given.can_send_message_group ?? sysId(POLICY_SEND_GROUP[spec.streamPostPolicy ?? STREAM_POST_POLICY.EVERYONE] ?? SystemGroup.EVERYONE);
  const nameOf = new Map([...system.values()].map((g) => [g.id, g.name]));
  const policy = policyForSendGroup(send, (gid) => nameOf.get(gid));
  const creator = spec.creatorId ?? null;
  const settings: Record<StreamGroupSettingName, string> = {
    can_remove_subscribers_group: encodeValue(given.can_remove_subscribers_group ?? sysId(SystemGroup.ADMINISTRATORS)),
    // Zulip's "stream_creator_or_nobody".
    can_administer_channel_group: encodeValue(given.can_administer_channel_group
      ?? (creator !== null ? { direct_members: [creator], direct_subgroups: [] } : sysId(SystemGroup.NOBODY))),
    can_send_message_group: encodeValue(send),
    can_add_subscribers_group: encodeValue(given.can_add_subscribers_group ?? sysId(SystemGroup.NOBODY)),
    can_subscribe_group: encodeValue(given.can_subscribe_group ?? sysId(SystemGroup.NOBODY)),
  };
  const id = await streams.insert(tx.db, {
    realm_id: realm.id,
    name: spec.name,
    name_lower: spec.name.toLowerCase(),
    description,
    rendered_description: renderStreamDescription(description),
    invite_only: inviteOnly ? 1 : 0,
    is_web_public: spec.isWebPublic && !inviteOnly ? 1 : 0,
    history_public_to_subscribers: history ? 1 : 0,
    stream_post_policy: policy,
    message_retention_days: spec.messageRetentionDays ?? null,
    ...settings,
    date_created: nowSeconds(),
    first_message_id: null,
    deactivated: 0,
    recipient_id: null,
    email_token: crypto.randomBytes(16).toString('hex'),
    creator_id: spec.creatorId ?? null,
  }).catch((err: unknown) => {
    // Two requests racing to create the same name: the loser hears what a later caller would.
    if (isUniqueViolation(err)) throw badRequest(`Stream name '${spec.name}' is already taken.`);
    throw err;
  });
  const recipientId = await recipients.insert(tx.db, RecipientType.STREAM, id);
  await streams.update(tx.db, id, { recipient_id: recipientId });
  const stream = (await streams.findById(tx.db, id))!;
  tx.notify({ type: 'stream', op: 'create', streams: [presentStream(stream, tx.featureLevel)] }, await streamAudienceIds(tx.db, stream, tx.featureLevel), realm.id);
  return stream;
}

/**
 * Creates the stream if no stream has the name yet, then subscribes the users.
 * The simple path for tests and other domains (messages, bootstrap); no permission checks.
 */
export async function createStreamWithSubscribers(tx: Tx, realm: RealmRow, spec: StreamSpec | string, users: UserRow[]): Promise<StreamRow> {
  const s: StreamSpec = typeof spec === 'string' ? { name: spec } : spec;
  const stream = (await streams.findByName(tx.db, realm.id, s.name)) ?? (await doCreateStream(tx, realm, s));
  if (users.length > 0) await doAddSubscriptions(tx, [stream], users);
  return stream;
}
