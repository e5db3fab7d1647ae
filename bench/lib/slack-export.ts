/**
 * A generated Slack workspace export (.zip), as Slack's export writes one: `users.json`,
 * `channels.json`, `groups.json` (private channels), `dms.json`, `mpims.json`,
 * `integration_logs.json`, and one folder per conversation (a channel's name, a group DM's
 * `mpdm-...` name, a DM's id) of per-day files `YYYY-MM-DD.json`, each an array of messages
 * in time order, pretty-printed as Slack prints them. Deterministic: the same options give the
 * same bytes. Streamed: one day file is in memory at a time, and the zip is written as it
 * grows (yazl pulls each entry only when the ones before it are written).
 *
 * The workspace: `people` people (one primary owner, a few owners, admins and guests, some
 * deactivated) and two bots; `#general` with everyone, the other channels with 10 to 150
 * members, a few private, a few archived; direct messages between pairs and groups of the
 * more active people. Messages follow working hours and weekdays and grow over the years;
 * ~10 % are thread replies, ~5 % carry reactions, and text has Slack's markup.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { Rng, Weighted, REACTIONS, channelName, messageText, personName, slackId } from './slack-export-text.js';

export interface SlackExportOptions {
  messages: number;
  /** Channels, public and private, `general` among them (default 100). */
  channels?: number;
  /** People other than bots (default 1,000). */
  people?: number;
  days?: number;
  seed?: number;
  /** Called after each day's files, with the messages written so far. */
  onProgress?: (written: number, total: number) => void;
}

export interface SlackExportSummary {
  messages: number;
  threadReplies: number;
  messagesWithReactions: number;
  people: number;
  bots: number;
  channels: number;
  privateChannels: number;
  dms: number;
  mpims: number;
  files: number;
  days: number;
  bytes: number;
}

const TEAM = 'T0BENCH001';
const DAY = 86_400;
/** Monday 3 January 2022, 00:00 UTC. */
const START = Date.UTC(2022, 0, 3) / 1000;

interface Person {
  id: string;
  name: string;
  realName: string;
  bot?: string;
}

interface Conversation {
  kind: 'channel' | 'group' | 'dm' | 'mpim';
  id: string;
  folder: string;
  members: number[];
  senders: Weighted;
  /** Active from this day until before `until` (archived channels stop). */
  from: number;
  until: number;
  burst: number;
  joined: boolean;
}

export async function writeSlackExport(file: string, opts: SlackExportOptions): Promise<SlackExportSummary> {
  const total = opts.messages;
  const days = opts.days ?? 730;
  const rng = new Rng(opts.seed ?? 33);
  const ws = buildWorkspace(rng, opts.people ?? 1000, opts.channels ?? 100, days);
  const zip = new ZipFile();
  const out = fs.createWriteStream(file);
  const finished = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
    zip.outputStream.on('error', reject);
  });
  zip.outputStream.pipe(out);
  const mtime = new Date(START * 1000);
  let files = 0;
  const add = (name: string, text: string, when = mtime) => {
    files++;
    // yazl keeps each entry's stream function until the end: it must not keep the bytes.
    let data: Buffer | undefined = Buffer.from(text);
    return new Promise<void>((resolve) => zip.addReadStreamLazy(name, { mtime: when }, (cb) => {
      const s = Readable.from([data!], { objectMode: false });
      data = undefined;
      // The next file is made only once this one is handed to the compressor: one in memory.
      s.on('end', resolve);
      cb(null, s);
    }));
  };

  for (const [name, rows] of Object.entries(ws.tables)) await add(name, JSON.stringify(rows, null, 4));

  const stats = { threadReplies: 0, messagesWithReactions: 0 };
  const perDay = dayCounts(total, days);
  const pickConv = new Weighted(ws.convs.map((c) => c.weight));
  const counts = new Int32Array(ws.convs.length);
  let written = 0;
  let seq = 0;
  for (let d = 0; d < days; d++) {
    counts.fill(0);
    for (let left = perDay[d]!; left > 0;) {
      const c = pickConv.pick(rng);
      const conv = ws.convs[c]!.conv;
      if (d < conv.from || d >= conv.until) continue;
      const n = Math.min(left, rng.geometric(conv.burst, 30));
      counts[c] = counts[c]! + n;
      left -= n;
    }
    const date = new Date((START + d * DAY) * 1000);
    const day = date.toISOString().slice(0, 10);
    for (let c = 0; c < ws.convs.length; c++) {
      if (counts[c] === 0) continue;
      const conv = ws.convs[c]!.conv;
      const msgs = dayMessages(rng, ws, conv, START + d * DAY, counts[c]!, () => seq++, stats);
      await add(`${conv.folder}/${day}.json`, JSON.stringify(msgs, null, 4), date);
    }
    written += perDay[d]!;
    opts.onProgress?.(written, total);
  }
  zip.end();
  await finished;
  return {
    messages: total, ...stats, people: ws.people.length - ws.bots, bots: ws.bots,
    channels: ws.channelCount, privateChannels: ws.privateCount, dms: ws.dmCount, mpims: ws.mpimCount,
    files, days, bytes: fs.statSync(file).size,
  };
}

/** Messages per day, exactly `total` in all: weekdays over weekends, growing over the years. */
function dayCounts(total: number, days: number): number[] {
  const w: number[] = [];
  for (let d = 0; d < days; d++) w.push((d % 7 >= 5 ? 0.2 : 1) * (0.6 + (0.8 * d) / days));
  const sum = w.reduce((a, b) => a + b, 0);
  const out: number[] = [];
  let acc = 0;
  let given = 0;
  for (const x of w) {
    acc += x;
    const upTo = Math.round((total * acc) / sum);
    out.push(upTo - given);
    given = upTo;
  }
  return out;
}

type Json = Record<string, unknown>;

interface Workspace {
  people: Person[];
  bots: number;
  convs: Array<{ conv: Conversation; weight: number }>;
  tables: Record<string, Json[]>;
  channels: Array<{ id: string; name: string }>;
  channelCount: number;
  privateCount: number;
  dmCount: number;
  mpimCount: number;
}

function buildWorkspace(rng: Rng, peopleCount: number, channelCount: number, days: number): Workspace {
  const people: Person[] = [];
  const users: Json[] = [];
  for (let i = 0; i < peopleCount; i++) {
    const { first, last } = personName(i);
    const name = `${ascii(first)}.${ascii(last)}${i}`.toLowerCase();
    const p: Person = { id: slackId('U', i), name, realName: `${first} ${last}` };
    people.push(p);
    const deleted = i > 10 && i % 47 === 0;
    const guest = i > 10 && i % 61 === 0;
    users.push(userJson(p, {
      deleted, is_admin: i > 0 && i < 12, is_owner: i < 3, is_primary_owner: i === 0,
      is_restricted: guest, is_ultra_restricted: guest && i % 2 === 0, tz: ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'America/Los_Angeles'][i % 4]!,
      email: `${name}@bench.example.com`, first, last,
    }));
  }
  const BOT_NAMES = ['Deploy Bot', 'Standup Bot'];
  BOT_NAMES.forEach((real, k) => {
    const p: Person = { id: slackId('U', peopleCount + k), name: real.toLowerCase().replace(' ', ''), realName: real, bot: slackId('B', k) };
    people.push(p);
    users.push(userJson(p, { is_bot: true, tz: 'America/Los_Angeles', first: real, last: '' }));
  });

  // How much each person talks: a long tail, in an order unrelated to their ids.
  const activity = rng.sample(peopleCount, peopleCount).map((rank) => 1 / Math.pow(rank + 8, 0.9));
  const senderPick = (members: number[]) => new Weighted(members.map((m) => activity[m] ?? 0.02));
  const convs: Array<{ conv: Conversation; weight: number }> = [];
  const channels: Json[] = [];
  const groups: Json[] = [];
  const channelRefs: Array<{ id: string; name: string }> = [];
  const scratch: number[] = [];
  const privateCount = Math.max(1, Math.round(channelCount * 0.08));
  const everyone = Array.from({ length: peopleCount }, (_, i) => i);
  for (let c = 0; c < channelCount; c++) {
    const isPrivate = c >= channelCount - privateCount;
    const size = c === 0 ? peopleCount : Math.min(peopleCount, Math.round(Math.exp(Math.log(10) + rng.next() * (Math.log(isPrivate ? 40 : 150) - Math.log(10)))));
    const members = c === 0 ? everyone : rng.sample(peopleCount, size, scratch).sort((a, b) => a - b);
    // The bots post in the first two channels after #random.
    if (c === 2 || c === 3) members.push(peopleCount + c - 2);
    const name = channelName(c);
    const id = slackId('C', c);
    const from = c < 2 || rng.chance(0.7) ? 0 : rng.int(Math.floor(days * 0.4));
    const archived = !isPrivate && c > 3 && c % 31 === 0;
    const until = archived ? from + Math.floor((days - from) * 0.7) : days;
    const creator = members[0]!;
    const created = START + from * DAY - 3600;
    const row: Json = {
      id, name, created, creator: people[creator]!.id, is_archived: archived, is_general: c === 0,
      members: members.map((m) => people[m]!.id), pins: [],
      topic: { value: c % 3 === 0 ? `All things ${name}` : '', creator: c % 3 === 0 ? people[creator]!.id : '', last_set: c % 3 === 0 ? created : 0 },
      purpose: { value: `Talk about ${name.replace('-', ' ')}`, creator: people[creator]!.id, last_set: created },
    };
    (isPrivate ? groups : channels).push(row);
    if (!isPrivate) channelRefs.push({ id, name });
    const weight = c === 0 ? 0.07 : c === 1 ? 0.04 : Math.pow(size, 0.6) * Math.exp(rng.next() * 1.6 - 0.8);
    convs.push({ conv: { kind: isPrivate ? 'group' : 'channel', id, folder: name, members, senders: senderPick(members), from, until, burst: 3, joined: false }, weight });
  }
  // Channel weights other than #general's and #random's share 65 % of messages.
  const channelSum = convs.slice(2).reduce((a, c) => a + c.weight, 0);
  for (const c of convs.slice(2)) c.weight = (0.65 * c.weight) / channelSum;

  const talkers = new Weighted(activity);
  const dms: Json[] = [];
  const seen = new Set<string>();
  const dmCount = Math.round(peopleCount * 0.3);
  while (dms.length < dmCount) {
    const a = talkers.pick(rng);
    const b = talkers.pick(rng);
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    if (a === b || seen.has(key)) continue;
    seen.add(key);
    const id = slackId('D', dms.length);
    dms.push({ id, created: START - DAY, members: [people[a]!.id, people[b]!.id] });
    convs.push({ conv: { kind: 'dm', id, folder: id, members: [a, b], senders: senderPick([a, b]), from: 0, until: days, burst: 5, joined: true }, weight: 0.19 / dmCount });
  }
  const mpims: Json[] = [];
  const mpimCount = Math.round(peopleCount * 0.04);
  while (mpims.length < mpimCount) {
    const members = [...new Set(Array.from({ length: 3 + rng.int(4) }, () => talkers.pick(rng)))].sort((a, b) => a - b);
    if (members.length < 3) continue;
    const id = slackId('G', mpims.length);
    const name = `mpdm-${members.map((m) => people[m]!.name).join('--')}-1`;
    mpims.push({
      id, name, created: START - DAY, creator: people[members[0]!]!.id, is_archived: false, members: members.map((m) => people[m]!.id),
      topic: { value: '', creator: '', last_set: 0 }, purpose: { value: `Group messaging with: ${members.map((m) => `@${people[m]!.name}`).join(' ')}`, creator: people[members[0]!]!.id, last_set: START - DAY },
    });
    convs.push({ conv: { kind: 'mpim', id, folder: name, members, senders: senderPick(members), from: 0, until: days, burst: 4, joined: true }, weight: 0.05 / mpimCount });
  }
  return {
    people, bots: BOT_NAMES.length, convs, channels: channelRefs,
    tables: { 'users.json': users, 'channels.json': channels, 'groups.json': groups, 'dms.json': dms, 'mpims.json': mpims, 'integration_logs.json': [] },
    channelCount, privateCount, dmCount, mpimCount,
  };
}

function ascii(s: string): string {
  return s.normalize('NFD').replace(/[^a-zA-Z]/g, '');
}

function userJson(p: Person, o: { deleted?: boolean; is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean; is_restricted?: boolean; is_ultra_restricted?: boolean; is_bot?: boolean; tz: string; email?: string; first: string; last: string }): Json {
  const image = `https://secure.gravatar.com/avatar/${p.id.toLowerCase()}.jpg?s=72&d=identicon`;
  return {
    id: p.id, team_id: TEAM, name: p.name, deleted: o.deleted ?? false, color: '9f69e7', real_name: p.realName,
    tz: o.tz, tz_label: o.tz, tz_offset: 0,
    profile: {
      title: '', phone: '', skype: '', real_name: p.realName, real_name_normalized: p.realName, display_name: p.name, display_name_normalized: p.name,
      fields: null, status_text: '', status_emoji: '', status_expiration: 0, avatar_hash: '', ...(o.email ? { email: o.email } : {}),
      ...(p.bot ? { bot_id: p.bot, always_active: true } : {}),
      first_name: o.first, last_name: o.last, image_24: image, image_32: image, image_48: image, image_72: image, image_192: image, image_512: image, team: TEAM,
    },
    is_admin: o.is_admin ?? false, is_owner: o.is_owner ?? false, is_primary_owner: o.is_primary_owner ?? false,
    is_restricted: o.is_restricted ?? false, is_ultra_restricted: o.is_ultra_restricted ?? false,
    is_bot: o.is_bot ?? false, is_app_user: false, updated: START,
  };
}

interface Slot {
  key: number;
  msg: Json;
}

/** One conversation's day: `count` messages (thread replies among them) between 07:00 and 23:59 UTC, in time order. */
function dayMessages(rng: Rng, ws: Workspace, conv: Conversation, dayStart: number, count: number, nextSeq: () => number, stats: { threadReplies: number; messagesWithReactions: number }): Json[] {
  const slots: Slot[] = [];
  const refs = {
    mentionable: () => ws.people[conv.members[rng.int(conv.members.length)]!]!.id,
    channel: () => rng.pick(ws.channels),
  };
  const last = dayStart + DAY - 1;
  const make = (sender: number, sec: number, extra: Json = {}): Slot => {
    const micro = nextSeq() % 1_000_000;
    const p = ws.people[sender]!;
    const msg: Json = {
      client_msg_id: hexId(rng), type: 'message', text: messageText(rng, refs), user: p.id, ts: `${sec}.${String(micro).padStart(6, '0')}`,
      team: TEAM, user_team: TEAM, source_team: TEAM,
      user_profile: { avatar_hash: '', image_72: `https://secure.gravatar.com/avatar/${p.id.toLowerCase()}.jpg`, first_name: p.realName.split(' ')[0], real_name: p.realName, display_name: p.name, team: TEAM, name: p.name, is_restricted: false, is_ultra_restricted: false },
      ...(p.bot ? { bot_id: p.bot } : {}),
      ...extra,
    };
    if (rng.chance(0.02)) msg.edited = { user: p.id, ts: `${Math.min(last, sec + 30 + rng.int(600))}.000000` };
    if (rng.chance(0.05)) {
      msg.reactions = reactions(rng, ws, conv);
      stats.messagesWithReactions++;
    }
    return { key: sec * 1_000_000 + micro, msg };
  };
  // Channels' replies: ~10 % of all messages (a conversation's first message of the day is never one),
  // in threads of ~4 under the day's top-level messages.
  let replyCount = 0;
  if (conv.kind === 'channel' || conv.kind === 'group') for (let i = 0; i < count; i++) if (rng.chance(0.135)) replyCount++;
  replyCount = Math.min(replyCount, count - 1);
  const tops: Slot[] = [];
  for (let i = 0; i < count - replyCount; i++) {
    // Working hours, a few later; UTC stands in for the team's zones.
    const sec = dayStart + Math.min(DAY - 2, Math.floor(7 * 3600 + rng.next() * 12 * 3600 + (rng.chance(0.1) ? rng.next() * 4 * 3600 : 0)));
    tops.push(make(conv.members[conv.senders.pick(rng)]!, sec));
  }
  slots.push(...tops);
  const threads = new Map<Slot, Array<{ user: string; ts: string; sec: number }>>();
  while (replyCount > 0) {
    const top = tops[rng.int(tops.length)]!;
    const replies = threads.get(top) ?? [];
    threads.set(top, replies);
    const parentUser = top.msg.user as string;
    let at = replies.length ? replies[replies.length - 1]!.sec : Math.floor(top.key / 1_000_000);
    for (let n = Math.min(replyCount, rng.geometric(4, 25)); n > 0; n--, replyCount--) {
      at = Math.min(last, at + 20 + rng.int(1800));
      const reply = make(conv.members[conv.senders.pick(rng)]!, at, { thread_ts: top.msg.ts, parent_user_id: parentUser });
      slots.push(reply);
      replies.push({ user: reply.msg.user as string, ts: reply.msg.ts as string, sec: at });
      stats.threadReplies++;
    }
  }
  for (const [top, replies] of threads) {
    const replyUsers = [...new Set(replies.map((r) => r.user))];
    Object.assign(top.msg, {
      thread_ts: top.msg.ts, reply_count: replies.length, reply_users_count: replyUsers.length, latest_reply: replies[replies.length - 1]!.ts,
      reply_users: replyUsers, replies: replies.map((r) => ({ user: r.user, ts: r.ts })), is_locked: false, subscribed: false,
    });
  }
  slots.sort((a, b) => a.key - b.key);
  if (!conv.joined) {
    // Slack's notice when a channel's first member joins; importers skip it (not counted).
    conv.joined = true;
    const first = slots[0]!.key;
    const creator = ws.people[conv.members[0]!]!;
    slots.unshift({ key: first - 1, msg: { type: 'message', subtype: 'channel_join', ts: `${Math.floor(first / 1_000_000) - 1}.${String(nextSeq() % 1_000_000).padStart(6, '0')}`, user: creator.id, text: `<@${creator.id}> has joined the channel` } });
  }
  return slots.map((s) => s.msg);
}

function reactions(rng: Rng, ws: Workspace, conv: Conversation): Json[] {
  const out: Json[] = [];
  for (const name of new Set(Array.from({ length: 1 + (rng.chance(0.25) ? 1 + rng.int(2) : 0) }, () => rng.pick(REACTIONS)))) {
    const users = [...new Set(Array.from({ length: 1 + rng.geometric(1.6, 12) - 1 }, () => ws.people[conv.members[conv.senders.pick(rng)]!]!.id))];
    out.push({ name, users, count: users.length });
  }
  return out;
}

function hexId(rng: Rng): string {
  const h = () => Math.floor(rng.next() * 0x10000).toString(16).padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
}
