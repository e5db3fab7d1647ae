/**
 * Conversations to recipients, as Zulip's channels_to_zerver_stream: public (channels.json)
 * and private (groups.json) channels to streams, mpims to huddles, then one personal
 * recipient per person; dms.json only names the two sides of each direct conversation.
 */
import { ImportError, type Row } from '../source.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { obj, optStr, seconds, str, strList, type Obj } from './json.js';
import type { SlackPerson } from './users.js';

/** Where a conversation's messages go: its folder in the export and its recipient. */
export type Conversation =
  | { kind: 'stream'; folder: string; recipient: number; invitesOnly: boolean }
  | { kind: 'huddle'; folder: string; recipient: number }
  | { kind: 'dm'; folder: string; members: [string, string] };

export interface ConvertedChannels {
  tables: Record<'zerver_stream' | 'zerver_recipient' | 'zerver_subscription' | 'zerver_huddle' | 'zerver_defaultstream', Row[]>;
  conversations: Conversation[];
  /** Channel ids to names, for `<#C1>` links. */
  channelNames: Map<string, string>;
  personalRecipient: Map<number, number>;
  /** The stream Zulip makes the announcements stream (the one named general). */
  announcements: number | undefined;
  subscribers: Map<number, number[]>;
}

const DEFAULT_CHANNELS = ['general', 'random'];
/** Zulip's stream colours, given in turn rather than at random so that a conversion is repeatable. */
const COLORS = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e', '#c2726a'];

export interface ChannelFiles { channels: Obj[]; groups: Obj[]; mpims: Obj[]; dms: Obj[] }

export function convertChannels(files: ChannelFiles, people: Map<string, SlackPerson>, realmId: number): ConvertedChannels {
  const tables: ConvertedChannels['tables'] = {
    zerver_stream: [], zerver_recipient: [], zerver_subscription: [], zerver_huddle: [], zerver_defaultstream: [],
  };
  const out: ConvertedChannels = {
    tables, conversations: [], channelNames: new Map(), personalRecipient: new Map(), announcements: undefined, subscribers: new Map(),
  };
  const seenFolders = new Set<string>();
  const recipient = (typeId: number, type: number) => {
    const id = tables.zerver_recipient.length + 1;
    tables.zerver_recipient.push({ id, type_id: typeId, type });
    return id;
  };
  const subscribe = (recipientId: number, members: string[], where: string) => {
    const ids = new Set<number>();
    for (const m of members) {
      const person = people.get(m);
      if (!person) throw new ImportError(`Slack export: ${where} lists member ${m}, who is not in users.json`);
      ids.add(person.id);
    }
    for (const userId of ids) {
      const id = tables.zerver_subscription.length + 1;
      tables.zerver_subscription.push({
        id, user_profile: userId, recipient: recipientId, active: true, is_muted: false, color: COLORS[(id - 1) % COLORS.length],
      });
    }
    out.subscribers.set(recipientId, [...ids].sort((a, b) => a - b));
  };
  const folder = (name: string, where: string) => {
    if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw new ImportError(`Slack export: ${where} has the unusable name "${name}"`);
    if (seenFolders.has(name)) throw new ImportError(`Slack export: ${where} reuses the name "${name}"`);
    seenFolders.add(name);
    return name;
  };

  const streams = (list: Obj[], file: string, invitesOnly: boolean) => list.forEach((ch, i) => {
    const where = `${file} entry ${i}`;
    const name = folder(str(ch, 'name', where), where);
    const channelId = str(ch, 'id', where);
    const id = tables.zerver_stream.length + 1;
    const archived = ch.is_archived === true;
    // Zulip's converter takes the purpose; the topic stands in when there is none.
    const description = (optStr(obj(ch, 'purpose'), 'value') || optStr(obj(ch, 'topic'), 'value') || '').replaceAll('\n', ' ');
    tables.zerver_stream.push({
      id, realm: realmId, name, description, date_created: seconds(ch.created) ?? 0, deactivated: archived,
      invite_only: invitesOnly, history_public_to_subscribers: !invitesOnly, is_web_public: false, stream_post_policy: 1,
    });
    const isGeneral = ch.is_general === true || name === 'general';
    if (!archived && (DEFAULT_CHANNELS.includes(name) || isGeneral)) {
      tables.zerver_defaultstream.push({ id: tables.zerver_defaultstream.length + 1, realm: realmId, stream: id });
    }
    if (isGeneral && out.announcements === undefined) out.announcements = id;
    out.channelNames.set(channelId, name);
    const r = recipient(id, RecipientType.STREAM);
    subscribe(r, strList(ch, 'members', where), where);
    out.conversations.push({ kind: 'stream', folder: name, recipient: r, invitesOnly });
  });
  streams(files.channels, 'channels.json', false);
  streams(files.groups, 'groups.json', true);

  files.mpims.forEach((m, i) => {
    const where = `mpims.json entry ${i}`;
    const name = folder(str(m, 'name', where), where);
    const members = strList(m, 'members', where);
    const id = tables.zerver_huddle.length + 1;
    tables.zerver_huddle.push({ id, group_size: members.length });
    const r = recipient(id, RecipientType.HUDDLE);
    subscribe(r, members, where);
    out.conversations.push({ kind: 'huddle', folder: name, recipient: r });
  });

  const userIds = [...new Set([...people.values()].map((p) => p.id))].sort((a, b) => a - b);
  for (const userId of userIds) {
    const r = recipient(userId, RecipientType.PERSONAL);
    out.personalRecipient.set(userId, r);
    tables.zerver_subscription.push({
      id: tables.zerver_subscription.length + 1, user_profile: userId, recipient: r, active: true, is_muted: false,
      color: COLORS[tables.zerver_subscription.length % COLORS.length],
    });
    out.subscribers.set(r, [userId]);
  }

  files.dms.forEach((dm, i) => {
    const where = `dms.json entry ${i}`;
    const name = folder(str(dm, 'id', where), where);
    const members = strList(dm, 'members', where);
    if (members.length === 0 || members.length > 2) throw new ImportError(`Slack export: ${where} has ${members.length} members, not 1 or 2`);
    for (const m of members) if (!people.has(m)) throw new ImportError(`Slack export: ${where} lists member ${m}, who is not in users.json`);
    out.conversations.push({ kind: 'dm', folder: name, members: [members[0]!, members[1] ?? members[0]!] });
  });
  return out;
}
