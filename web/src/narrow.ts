/**
 * Narrows as Zulip writes them: a list of {operator, operand, negated}. They travel to GET
 * /messages as they are, appear in the URL in Zulip's hash format (#narrow/stream/12-general/
 * topic/lunch) and in the search box as operators (stream:general topic:lunch words).
 */
import type { Message, State } from './types';

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

/**
 * Whether a message belongs in a narrow; undefined when only the server can tell (full-text
 * search, has:link), in which case a live message is left for the next fetch, as Zulip does.
 */
export function matches(narrow: Narrow, m: Message, state: State): boolean | undefined {
  for (const t of narrow) {
    const r = matchTerm(t, m, state);
    if (r === undefined) return undefined;
    if (r === Boolean(t.negated)) return false;
  }
  return true;
}

function matchTerm(t: Term, m: Message, state: State): boolean | undefined {
  const operand = t.operand.toLowerCase();
  switch (t.operator) {
    case 'stream':
      return m.type === 'stream' && streamByName(state, t.operand)?.stream_id === m.stream_id;
    case 'topic':
      return m.type === 'stream' && m.subject.toLowerCase() === operand;
    case 'sender':
      return state.usersById.get(m.sender_id)?.email.toLowerCase() === operand || String(m.sender_id) === operand;
    case 'pm-with': {
      if (m.type !== 'private') return false;
      const want = operand.split(',').map((e) => userByEmail(state, e.trim())?.user_id).filter((x): x is number => x !== undefined && x !== state.me);
      const have = pmPartners(m, state.me);
      return want.length === have.length && [...want].sort((a, b) => a - b).every((id, i) => id === have[i]);
    }
    case 'is':
      if (operand === 'private' || operand === 'dm') return m.type === 'private';
      if (operand === 'starred') return m.flags.includes('starred');
      if (operand === 'mentioned') return m.flags.includes('mentioned') || m.flags.includes('wildcard_mentioned');
      if (operand === 'unread') return !m.flags.includes('read');
      return undefined;
    case 'id':
      return String(m.id) === t.operand;
    default:
      return undefined;
  }
}

export function sameNarrow(a: Narrow, b: Narrow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A heading for the view. */
export function narrowTitle(narrow: Narrow, state: State): string {
  if (narrow.length === 0) return 'All messages';
  if (narrow.length === 1 && narrow[0]!.operator === 'is') {
    const o = narrow[0]!.operand;
    if (o === 'starred') return 'Starred messages';
    if (o === 'mentioned') return 'Mentions';
    if (o === 'private' || o === 'dm') return 'Private messages';
  }
  const stream = narrow.find((t) => t.operator === 'stream');
  const topic = narrow.find((t) => t.operator === 'topic');
  if (stream && narrow.length <= 2) return topic ? `#${stream.operand} > ${topic.operand}` : `#${stream.operand}`;
  const pm = narrow.find((t) => t.operator === 'pm-with');
  if (pm && narrow.length === 1) return pm.operand.split(',').map((e) => userByEmail(state, e)?.full_name ?? e).join(', ');
  return narrowToSearch(narrow);
}
