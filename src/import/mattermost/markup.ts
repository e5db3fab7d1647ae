/**
 * Mattermost markdown to Zulip markdown. Both are CommonMark with extensions, so the text
 * stays as written except for what names people and channels: `@username` becomes
 * `@**Full Name**` (and marks that user mentioned), `@channel`, `@all` and `@here` become
 * `@**all**` (Zulip has no "online only" mention), and `~channel-name` becomes
 * `#**Stream name**`. Code spans and blocks are left alone.
 */

export interface Mentions {
  content: string;
  mentioned: Set<number>;
  wildcard: boolean;
}

export interface Names {
  userIdByName: ReadonlyMap<string, number>;
  fullNameById: ReadonlyMap<number, string>;
  streamNameByChannel: ReadonlyMap<string, string>;
}

/**
 * Zulip's username pattern (mattermost.py's get_mentioned_user_ids): letters and digits,
 * each run optionally followed by one `_` or `.`, not preceded by a character of a name or
 * of an address. Written without nested repetition so that no input can make it backtrack.
 */
const MENTION = /(?<![A-Za-z0-9\-_.])@([A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*[_.]?)/g;
const CHANNEL_LINK = /(?<![\w~-])~([a-z0-9][a-z0-9_-]*)/g;
const WILDCARDS = new Set(['channel', 'all', 'here']);
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`)/;

export function convertMarkup(text: string, names: Names): Mentions {
  const mentioned = new Set<number>();
  let wildcard = false;
  const prose = (s: string): string =>
    s
      .replace(MENTION, (whole, name: string) => {
        const bare = name.replace(/[_.]$/, '');
        if (WILDCARDS.has(bare)) {
          wildcard = true;
          return `@**all**${name.slice(bare.length)}`;
        }
        const id = names.userIdByName.get(name);
        if (id === undefined) return whole;
        mentioned.add(id);
        return `@**${names.fullNameById.get(id)}**`;
      })
      .replace(CHANNEL_LINK, (whole, name: string) => {
        const stream = names.streamNameByChannel.get(name);
        return stream === undefined ? whole : `#**${stream}**`;
      });
  // split() with a capturing group alternates prose (even) and code (odd).
  const content = text.split(CODE).map((part, i) => (i % 2 === 0 ? prose(part) : part)).join('');
  return { content, mentioned, wildcard };
}
