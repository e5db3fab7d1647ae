/**
 * Narrows as Zulip writes them: a list of {operator, operand, negated}. They travel to GET
 * /messages as they are, appear in the URL in Zulip's hash format (#narrow/stream/12-general/
 * topic/lunch) and in the search box as operators (stream:general topic:lunch words).
 */
import { matchesNarrow } from '../../src/narrow/match';
import type { InternalMessage, ResolvedTerm } from '../../src/narrow/types';
import { FLAG_BITS, type FlagName } from '../../src/lib/message-flags';
import type { Message, State } from './types';
import { t as tr } from './i18n';

export type Term = { operator: string; operand: string; negated?: boolean };
export type Narrow = Term[];

/** Zulip's hash_util.encodeHashComponent: percent-encoding with '.' standing for '%'. */
export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s).replace(/\./g, '%2E').replace(/%/g, '.');
}

export function decodeHashComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\./g, '%'));
  } catch {
    return s;
  }
}

const slug = (name: string) => name.replace(/ /g, '-');

/** The hash of a narrow, as Zulip's web app builds it (stream and people by id, so renames keep links). */
export function narrowToHash(narrow: Narrow, state: State): string {
  if (narrow.length === 0) return '#all_messages';
  const parts = ['#narrow'];
  for (const t of narrow) {
    let operand = t.operand;
    if (t.operator === 'stream') {
      const s = streamByName(state, operand);
      if (s) operand = `${s.stream_id}-${slug(s.name)}`;
    }
    if (t.operator === 'pm-with' || t.operator === 'sender') {
      const ids = operand.split(',').map((e) => userByEmail(state, e.trim())?.user_id);
      if (ids.every((id) => id !== undefined)) operand = `${ids.join(',')}-${t.operator === 'sender' || ids.length === 1 ? 'pm' : 'group'}`;
    }
    parts.push(`${t.negated ? '-' : ''}${t.operator}`, encodeHashComponent(operand));
  }
  return parts.join('/');
}

/** Reads #narrow/... (and Zulip's older forms); null for a hash that is not a narrow. */
export function hashToNarrow(hash: string, state: State): Narrow | null {
  const h = hash.replace(/^#/, '');
  if (h === '' || h === 'all_messages' || h === 'feed') return [];
  const parts = h.split('/');
  if (parts[0] !== 'narrow') return null;
  const out: Narrow = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    let operator = decodeHashComponent(parts[i]!);
    const negated = operator.startsWith('-');
    if (negated) operator = operator.slice(1);
    let operand = decodeHashComponent(parts[i + 1]!);
    if (operator === 'stream' || operator === 'channel') {
      operator = 'stream';
      // "12-general": the id wins; a bare name (or a renamed stream's stale slug) falls back.
      const m = /^(\d+)(?:-|$)/.exec(operand);
      const s = m ? state.streamsById.get(Number(m[1])) : undefined;
      operand = s ? s.name : operand.replace(/-/g, ' ');
      if (!s && !streamByName(state, operand)) operand = decodeHashComponent(parts[i + 1]!);
    }
    if (operator === 'subject') operator = 'topic';
    if (operator === 'pm-with' || operator === 'dm' || operator === 'sender') {
      if (operator === 'dm') operator = 'pm-with';
      const ids = /^([\d,]+)(?:-.*)?$/.exec(operand);
      if (ids) operand = ids[1]!.split(',').map((id) => state.usersById.get(Number(id))?.email ?? id).join(',');
    }
    out.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return out;
}

/** The search box's text for a narrow, and back: Zulip's `operator:operand` syntax. */
export function narrowToSearch(narrow: Narrow): string {
  return narrow
    .map((t) => (t.operator === 'search' ? t.operand : `${t.negated ? '-' : ''}${t.operator}:${/\s/.test(t.operand) ? `"${t.operand}"` : t.operand}`))
    .join(' ');
}

export function parseSearch(text: string): Narrow {
  const out: Narrow = [];
  const words: string[] = [];
  const re = /(-?)([a-z-]+):("[^"]*"|\S+)|(\S+)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[4] !== undefined || !KNOWN_OPERATORS.has(m[2]!.toLowerCase())) {
      words.push(m[0]);
      continue;
    }
    let operator = m[2]!.toLowerCase();
    if (operator === 'subject') operator = 'topic';
    if (operator === 'dm') operator = 'pm-with';
    if (operator === 'channel') operator = 'stream';
    const operand = m[3]!.replace(/^"(.*)"$/, '$1');
    out.push(m[1] ? { operator, operand, negated: true } : { operator, operand });
  }
  if (words.length) out.push({ operator: 'search', operand: words.join(' ') });
  return out;
}

const KNOWN_OPERATORS = new Set(['stream', 'channel', 'topic', 'subject', 'pm-with', 'dm', 'sender', 'from', 'is', 'has', 'near', 'id', 'streams', 'group-pm-with']);

export function streamByName(state: State, name: string) {
  const lower = name.toLowerCase();
  for (const s of state.streamsById.values()) if (s.name.toLowerCase() === lower) return s;
  return undefined;
}

export function userByEmail(state: State, email: string) {
  return state.usersByEmail.get(email.toLowerCase());
}

/** The people of a private message other than me (empty: a message to myself). */
export function pmPartners(m: Message, me: number): number[] {
  if (!Array.isArray(m.display_recipient)) return [];
  const ids = m.display_recipient.map((r) => r.id).filter((id) => id !== me);
  return ids.sort((a, b) => a - b);
}

/** Stands for a stream or person the app does not know: matches no message (as the server's resolve). */
const NOBODY = -1;
type IsWhat = Extract<ResolvedTerm, { op: 'is' }>['what'];
const IS_LOCAL: readonly IsWhat[] = ['private', 'starred', 'mentioned', 'alerted', 'unread', 'resolved'];

const userIdOf = (state: State, operand: string) =>
  (/^\d+$/.test(operand.trim()) ? Number(operand.trim()) : userByEmail(state, operand.trim())?.user_id ?? NOBODY);

/**
 * A term resolved against the app's state (names to ids), as the server resolves it for
 * its own predicate; undefined when only the server can tell (full-text search, has:link).
 */
function resolveTerm(t: Term, state: State): ResolvedTerm | undefined {
  const negated = Boolean(t.negated);
  switch (t.operator) {
    case 'stream':
      return { op: 'stream', streamId: streamByName(state, t.operand)?.stream_id ?? NOBODY, negated };
    case 'topic':
      return { op: 'topic', topicLower: t.operand.toLowerCase(), negated };
    case 'sender':
      return { op: 'sender', userId: userIdOf(state, t.operand), negated };
    case 'pm-with': {
      const ids = new Set([state.me, ...t.operand.split(',').map((e) => userIdOf(state, e))]);
      return { op: 'pm-with', memberIds: [...ids].sort((a, b) => a - b), negated };
    }
    case 'is': {
      const operand = t.operand.toLowerCase() === 'dm' ? 'private' : t.operand.toLowerCase();
      const what = IS_LOCAL.find((w) => w === operand);
      return what ? { op: 'is', what, negated } : undefined;
    }
    case 'id':
      return { op: 'id', id: Number(t.operand), negated };
    default:
      return undefined;
  }
}

/** The server's view of a held message, for its predicate. */
function internalOf(m: Message): InternalMessage {
  const isStream = m.type === 'stream';
  return {
    id: m.id,
    sender_id: m.sender_id,
    stream_id: isStream ? m.stream_id ?? Number.NaN : null,
    topic: m.subject,
    pm_user_ids: Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : [],
    // Only the server evaluates search and has: (resolveTerm leaves them out).
    content: '',
    has_link: false,
    has_image: false,
    has_attachment: false,
  };
}

const flagMask = (flags: string[]) => flags.reduce((mask, f) => mask | (f in FLAG_BITS ? FLAG_BITS[f as FlagName] : 0), 0);

/**
 * Whether a message belongs in a narrow, by the server's own predicate (src/narrow/match.ts);
 * undefined when only the server can tell, in which case a live message is left for the
 * next fetch, as Zulip does.
 */
export function matches(narrow: Narrow, m: Message, state: State): boolean | undefined {
  const terms: ResolvedTerm[] = [];
  for (const t of narrow) {
    const r = resolveTerm(t, state);
    if (r === undefined) return undefined;
    terms.push(r);
  }
  return matchesNarrow(terms, internalOf(m), flagMask(m.flags));
}

export function sameNarrow(a: Narrow, b: Narrow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A heading for the view. */
export function narrowTitle(narrow: Narrow, state: State): string {
  if (narrow.length === 0) return tr('All messages');
  if (narrow.length === 1 && narrow[0]!.operator === 'is') {
    const o = narrow[0]!.operand;
    if (o === 'starred') return tr('Starred messages');
    if (o === 'mentioned') return tr('Mentions');
    if (o === 'private' || o === 'dm') return tr('Private messages');
  }
  const stream = narrow.find((t) => t.operator === 'stream');
  const topic = narrow.find((t) => t.operator === 'topic');
  if (stream && narrow.length <= 2) return topic ? `#${stream.operand} > ${topic.operand}` : `#${stream.operand}`;
  const pm = narrow.find((t) => t.operator === 'pm-with');
  if (pm && narrow.length === 1) return pm.operand.split(',').map((e) => userByEmail(state, e)?.full_name ?? e).join(', ');
  return narrowToSearch(narrow);
}
