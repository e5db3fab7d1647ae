import { ImportError } from '../source.js';
import { type JsonObject, num, objects, parseLine, scanLines, str, strings } from './lines.js';
import { PostIndex } from './post-index.js';

/**
 * The first pass over export.json: every line but the posts kept as they are (teams,
 * channels, users, emoji and direct channels are small), and of the posts only where each
 * message is, who wrote it and what files it names.
 */

export interface Numbered { row: JsonObject; lineNo: number }

export interface PendingAttachment {
  offset: number;
  reply: number;
  index: number;
  path: string;
  user: string;
  conversation: number;
  lineNo: number;
}

/** Scope of a direct post in `authors`: Mattermost's direct posts belong to no team. */
export const DIRECT = '\u0001direct';

export interface Scan {
  teams: Numbered[];
  channels: Numbered[];
  users: Numbered[];
  emoji: Numbered[];
  directChannels: Array<{ members: string[]; lineNo: number }>;
  index: PostIndex;
  /** Interned conversation keys: channelKey() or directKey(). */
  conversations: string[];
  /** Scope (a team name, or DIRECT) -> username -> the first line where they wrote. */
  authors: Map<string, Map<string, number>>;
  attachments: PendingAttachment[];
}

export const channelKey = (team: string, channel: string): string => `c\u0000${team}\u0000${channel}`;
export const directKey = (members: readonly string[]): string => `d\u0000${[...new Set(members)].sort().join('\u0000')}`;
export const directMembers = (key: string): string[] => key.split('\u0000').slice(1);

export async function scanExport(file: string): Promise<Scan> {
  const scan: Scan = {
    teams: [], channels: [], users: [], emoji: [], directChannels: [], index: new PostIndex(),
    conversations: [], authors: new Map(), attachments: [],
  };
  const interned = new Map<string, number>();
  const intern = (key: string): number => {
    let id = interned.get(key);
    if (id === undefined) {
      id = scan.conversations.push(key) - 1;
      interned.set(key, id);
    }
    return id;
  };
  const wrote = (scope: string, user: string, lineNo: number): void => {
    let users = scan.authors.get(scope);
    if (!users) scan.authors.set(scope, (users = new Map()));
    if (!users.has(user)) users.set(user, lineNo);
  };
  let versionSeen = false;

  await scanLines(file, (bytes, ref) => {
    const line = parseLine(bytes, ref.lineNo);
    if (!line) return;
    const type = line.type as string;
    if (!versionSeen) {
      if (type !== 'version') throw new ImportError(`export.json line ${ref.lineNo}: the first line must be the version line, found "${type}"`);
      if (line.version !== 1) throw new ImportError(`export.json line ${ref.lineNo}: export version ${JSON.stringify(line.version)} is not supported (only version 1)`);
      versionSeen = true;
      return;
    }
    const body = line[type];
    const row = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as JsonObject) : undefined;
    if (!row) throw new ImportError(`export.json line ${ref.lineNo}: a "${type}" line without its "${type}" object`);
    const numbered = { row, lineNo: ref.lineNo };
    switch (type) {
      case 'team': scan.teams.push(numbered); break;
      case 'channel': scan.channels.push(numbered); break;
      case 'user': scan.users.push(numbered); break;
      case 'emoji': scan.emoji.push(numbered); break;
      case 'direct_channel': scan.directChannels.push({ members: strings(row.members), lineNo: ref.lineNo }); break;
      case 'post':
      case 'direct_post': {
        let scope: string;
        let conversation: number;
        if (type === 'post') {
          scope = str(row.team);
          conversation = intern(channelKey(scope, str(row.channel)));
        } else {
          const members = strings(row.channel_members);
          if (members.length === 0) throw new ImportError(`export.json line ${ref.lineNo}: a direct post without channel_members`);
          scope = DIRECT;
          conversation = intern(directKey(members));
        }
        const messages = [row, ...objects(row.replies)];
        messages.forEach((m, i) => {
          const user = str(m.user);
          if (user === '') throw new ImportError(`export.json line ${ref.lineNo}: a ${i === 0 ? 'post' : 'reply'} without its user`);
          wrote(scope, user, ref.lineNo);
          scan.index.add(num(m.create_at), ref.offset, ref.length, ref.lineNo, i - 1, conversation);
          objects(m.attachments).forEach((a, index) => {
            scan.attachments.push({ offset: ref.offset, reply: i - 1, index, path: str(a.path), user, conversation, lineNo: ref.lineNo });
          });
        });
        break;
      }
      default:
        // Other line types (scheme, role, bot, ...) carry nothing Zulip's converter reads.
        break;
    }
  });
  if (!versionSeen) throw new ImportError('export.json has no version line');
  return scan;
}
