import type { Row } from '../source.js';
import { ImportError } from '../source.js';
import { STREAM_COLORS } from '../../actions/subscription-add.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { num, objects, str } from './lines.js';
import { type Scan, channelKey, directKey, directMembers } from './scan.js';
import { type People, teamMembership } from './users.js';

/**
 * Streams, direct-message groups, recipients and subscriptions, as mattermost.py builds
 * them: the team's channels become streams (O public, P private with history hidden, as
 * Zulip imports every other product's private channels), purpose or else header becomes the
 * description, and a channel's members are those whose team membership lists it. Direct
 * channels of three or more become huddles; two people's is their personal recipients.
 * Recipients are numbered as Zulip does: users first, then streams, then huddles.
 */

export interface Conversations {
  zerver_stream: Row[];
  zerver_huddle: Row[];
  zerver_recipient: Row[];
  zerver_subscription: Row[];
  /** channelKey(team, name) or directKey(members) -> recipient id; personal ones by user id. */
  recipientByKey: Map<string, number>;
  personalRecipient: Map<number, number>;
  /** Recipient id -> the users who receive its messages. */
  subscribers: Map<number, number[]>;
  /** Stream recipients that are public: their files are visible to the whole organization. */
  publicRecipients: Set<number>;
  /** Channel name -> display name, for `~channel` links. */
  streamNameByChannel: Map<string, string>;
}

export function convertConversations(scan: Scan, team: string, people: People, withDirect: boolean, now: number): Conversations {
  const out: Conversations = {
    zerver_stream: [], zerver_huddle: [], zerver_recipient: [], zerver_subscription: [],
    recipientByKey: new Map(), personalRecipient: new Map(), subscribers: new Map(), publicRecipients: new Set(),
    streamNameByChannel: new Map(),
  };
  const recipient = (type: number, typeId: number): number => {
    const id = out.zerver_recipient.length + 1;
    out.zerver_recipient.push({ id, type, type_id: typeId });
    return id;
  };
  for (const user of people.rows) {
    const id = user.id as number;
    const r = recipient(RecipientType.PERSONAL, id);
    out.personalRecipient.set(id, r);
    out.subscribers.set(r, [id]);
  }

  const membersOf = new Map<string, number[]>();
  for (const { row: user } of scan.users) {
    const id = people.idByName.get(str(user.username));
    if (id === undefined) continue;
    for (const ch of objects(teamMembership(user, team)?.channels)) {
      const name = str(ch.name);
      const list = membersOf.get(name) ?? [];
      if (!list.includes(id)) list.push(id);
      membersOf.set(name, list);
    }
  }

  for (const { row, lineNo } of scan.channels) {
    if (str(row.team) !== team) continue;
    const name = str(row.name);
    const key = channelKey(team, name);
    if (out.recipientByKey.has(key)) continue;
    const type = str(row.type);
    if (type !== 'O' && type !== 'P') throw new ImportError(`export.json line ${lineNo}: channel "${name}" has type "${type}" (expected O or P)`);
    const inviteOnly = type === 'P';
    const id = out.zerver_stream.length + 1;
    const displayName = str(row.display_name) || name;
    out.zerver_stream.push({
      id, realm: 1, name: displayName,
      description: (str(row.purpose) || str(row.header)).replace(/\n/g, ' '), rendered_description: '',
      invite_only: inviteOnly, history_public_to_subscribers: !inviteOnly, is_web_public: false,
      deactivated: num(row.deleted_at) > 0, date_created: now, stream_post_policy: 1,
    });
    out.streamNameByChannel.set(name, displayName);
    const r = recipient(RecipientType.STREAM, id);
    out.recipientByKey.set(key, r);
    if (!inviteOnly) out.publicRecipients.add(r);
    out.subscribers.set(r, [...(membersOf.get(name) ?? [])].sort((a, b) => a - b));
  }

  if (withDirect) {
    const keys = [...scan.directChannels.map((d) => directKey(d.members)), ...scan.conversations.filter((k) => k.startsWith('d\u0000'))];
    for (const key of keys) {
      const members = directMembers(key);
      if (members.length <= 2 || out.recipientByKey.has(key)) continue;
      const id = out.zerver_huddle.length + 1;
      out.zerver_huddle.push({ id, group_size: members.length });
      const r = recipient(RecipientType.HUDDLE, id);
      out.recipientByKey.set(key, r);
      out.subscribers.set(r, members.map((m) => people.idByName.get(m)!).sort((a, b) => a - b));
    }
  }

  // Each user's streams take the palette's colors in turn, as Zulip hands out unused ones.
  const colorsUsed = new Map<number, number>();
  for (const r of out.zerver_recipient) {
    for (const user of out.subscribers.get(r.id as number) ?? []) {
      const n = colorsUsed.get(user) ?? 0;
      if (r.type === RecipientType.STREAM) colorsUsed.set(user, n + 1);
      out.zerver_subscription.push({
        id: out.zerver_subscription.length + 1, user_profile: user, recipient: r.id, active: true,
        is_user_active: people.activeById.get(user) ?? true, is_muted: false, pin_to_top: false,
        color: STREAM_COLORS[n % STREAM_COLORS.length]!,
      });
    }
  }
  return out;
}
