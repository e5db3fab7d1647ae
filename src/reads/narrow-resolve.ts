import type { Q, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { users } from '../store/repos/users.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { userTopics } from '../store/repos/user-topics.js';
import { SHOWING_POLICIES, VisibilityPolicy } from '../lib/visibility-policy.js';
import { canReadHistory, canSeeStream } from '../access/stream.js';
import { contentGroupsFor, type GroupMembership } from '../access/channel-access.js';
import type { NarrowTerm, ResolvedNarrow, ResolvedTerm } from '../narrow/types.js';
import { badNarrow, badNarrowCombination } from '../errors.js';
import { accessMessage } from '../access/message.js';
import { messages } from '../store/repos/messages.js';
import { recipients } from '../store/repos/recipients.js';
import { RecipientType } from '../lib/recipient-type.js';
import { isPossibleId } from '../lib/ids.js';

const IS_VALUES = new Set(['private', 'dm', 'starred', 'mentioned', 'alerted', 'unread', 'resolved', 'followed', 'muted']);

/** Stands for a stream or user that does not exist (or is not visible): matches no message. */
const NOBODY = -1;

async function userFor(q: Q, viewer: UserRow, operand: unknown, lenient: boolean): Promise<number> {
  const key = typeof operand === 'number' ? operand : String(operand).trim();
  const u = typeof key === 'number' || /^\d+$/.test(key)
    ? await users.findInRealm(q, viewer.realm_id, Number(key))
    : await users.findByEmail(q, viewer.realm_id, key);
  if (!u) {
    if (lenient) return NOBODY;
    throw badNarrow(`unknown user ${String(operand)}`);
  }
  return u.id;
}

function asList(operand: unknown): unknown[] {
  if (Array.isArray(operand)) return operand;
  if (typeof operand === 'string') return operand.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [operand];
}

/**
 * What `in:home` keeps: private messages and stream messages outside muted streams and
 * topics, a muted stream's unmuted and followed topics kept (Zulip's
 * exclude_stream_and_topic_mutes). With `streamId` (a narrow to that stream), only that
 * stream's muted topics count. Negated, it is `is:muted`.
 */
export async function mutingTerm(q: Q, viewer: UserRow, negated: boolean, streamId?: number): Promise<ResolvedTerm> {
  const mutedStreamIds = streamId === undefined ? await subscriptions.listMutedStreamIds(q, viewer.id) : [];
  const muted = new Set(mutedStreamIds);
  const shownTopics = muted.size ? (await userTopics.listKeysOfUser(q, viewer.id, SHOWING_POLICIES)).filter(([s]) => muted.has(s)) : [];
  const mutedTopics = await userTopics.listKeysOfUser(q, viewer.id, [VisibilityPolicy.MUTED], streamId);
  return { op: 'in-home', negated, mutedStreamIds, mutedTopics, shownTopics };
}

/** The operators that name a conversation, which a `with` term replaces (parse.ts has mapped channel and dm). */
const CONVERSATION_OPERATORS = new Set(['stream', 'topic', 'pm-with']);

/** Zulip's can_narrow_define_conversation: a direct-message term, or a stream term with a topic term. */
function definesConversation(terms: NarrowTerm[]): boolean {
  return terms.some((t) => t.operator === 'pm-with')
    || (terms.some((t) => t.operator === 'stream') && terms.some((t) => t.operator === 'topic'));
}

/** Python's int() of a narrow operand: an integer, or a string of digits with an optional sign and spaces. */
function messageIdOf(operand: unknown): number | undefined {
  if (typeof operand === 'number') return operand;
  if (typeof operand === 'string' && /^\s*[+-]?\d+\s*$/.test(operand)) return Number(operand.trim());
  return undefined;
}

/**
 * Zulip's update_narrow_terms_containing_with_operator (feature level 271): `with` names a
 * message, and the narrow becomes that message's current conversation, so that a link
 * still finds a topic after its messages moved. Its stream, topic and direct-message terms
 * give way to the conversation's; other terms stay. A message the viewer cannot read
 * leaves the narrow's own conversation terms if they name one, else the narrow is refused
 * (an event queue's narrow, `lenient`, then matches nothing).
 */
async function expandWith(q: Q, viewer: UserRow, terms: NarrowTerm[], lenient: boolean): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) throw badNarrowCombination("Duplicate 'with' operators.");
  const rest = terms.filter((t) => t.operator !== 'with');
  const id = messageIdOf(withTerms[0]!.operand);
  if (id === undefined) throw badNarrow("Invalid 'with' operator");
  const message = isPossibleId(id) ? await accessMessage(q, viewer, id).then((a) => a.message, () => undefined) : undefined;
  if (!message) {
    if (definesConversation(rest)) return rest;
    if (lenient) return [...rest, { operator: 'stream', operand: NOBODY, negated: false }];
    throw badNarrow("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  if (message.stream_id !== null) {
    return [{ operator: 'stream', operand: message.stream_id, negated: false }, { operator: 'topic', operand: message.topic, negated: false }, ...others];
  }
  // Everyone in the conversation; pm-with adds the viewer, who is one of them.
  const [recipient] = await recipients.listByIds(q, [message.recipient_id]);
  const members = recipient?.type === RecipientType.HUDDLE
    ? (await messages.huddleMembers(q, [recipient.id])).get(recipient.id) ?? []
    : [message.sender_id, ...(recipient ? [recipient.type_id] : [])];
  return [{ operator: 'pm-with', operand: [...new Set(members)], negated: false }, ...others];
}

/**
 * Names to ids, checked against what the viewer may see; unknown names are Zulip's
 * BAD_NARROW errors. `lenient` (an event queue's narrow, which Zulip only ever matches
 * events against) turns an unknown stream or user into one that matches nothing instead.
 */
export async function resolveNarrow(q: Q, viewer: UserRow, terms: NarrowTerm[], lenient = false, featureLevel = 0): Promise<ResolvedNarrow> {
  // Level 354: a private stream's content-granting groups open it (and its shared history) to their members.
  let groups: GroupMembership | undefined | null = null;
  const groupsOf = async () => (groups === null ? (groups = await contentGroupsFor(q, viewer, featureLevel)) : groups);
  const out: ResolvedTerm[] = [];
  const history: number[] = [];
  for (const t of await expandWith(q, viewer, terms, lenient)) {
    const negated = t.negated;
    switch (t.operator) {
      case 'stream': {
        // As Zulip: an integer is an ID and a string a name. A string of digits naming no
        // stream is still taken as an ID, for clients that send IDs as strings.
        const s = typeof t.operand === 'number'
          ? await streams.findInRealm(q, viewer.realm_id, t.operand)
          : (await streams.findByName(q, viewer.realm_id, String(t.operand).trim()))
            ?? (/^\d+$/.test(String(t.operand)) ? await streams.findInRealm(q, viewer.realm_id, Number(t.operand)) : undefined);
        const sub = s ? await subscriptions.findActive(q, viewer.id, s.id) : undefined;
        // A stream the viewer may not see is as unknown as one that does not exist.
        const viaGroups = s && s.invite_only === 1 && !sub ? await groupsOf() : undefined;
        if (!s || !canSeeStream(viewer, s, sub ?? null, false, viaGroups)) {
          if (!lenient) throw badNarrow(`unknown stream ${String(t.operand)}`);
          out.push({ op: 'stream', streamId: NOBODY, negated });
          break;
        }
        if (!negated && canReadHistory(viewer, s, sub ?? null, viaGroups)) history.push(s.id);
        out.push({ op: 'stream', streamId: s.id, negated });
        break;
      }
      case 'topic':
        out.push({ op: 'topic', topicLower: String(t.operand).toLowerCase(), negated });
        break;
      // One user each: the sender, or someone in the private conversations wanted.
      case 'sender':
      case 'group-pm-with':
      case 'dm-including':
        out.push({ op: t.operator as 'sender' | 'group-pm-with' | 'dm-including', userId: await userFor(q, viewer, t.operand, lenient), negated });
        break;
      case 'pm-with': {
        // Zulip's wording for this operator names the whole operand ("unknown user in ...");
        // an operand naming nobody is no conversation at all.
        const list = asList(t.operand);
        const named = Array.isArray(t.operand) ? `[${t.operand.join(', ')}]` : String(t.operand);
        if (list.length === 0) {
          if (!lenient) throw badNarrow(`unknown user in ${named}`);
          out.push({ op: 'sender', userId: NOBODY, negated });
          break;
        }
        const ids = new Set<number>([viewer.id]);
        for (const x of list) {
          const id = await userFor(q, viewer, x, true);
          if (id === NOBODY && !lenient) throw badNarrow(`unknown user in ${named}`);
          ids.add(id);
        }
        out.push({ op: 'pm-with', memberIds: [...ids].sort((a, b) => a - b), negated });
        break;
      }
      case 'is': {
        const v = String(t.operand);
        if (!IS_VALUES.has(v)) throw badNarrow(`unknown 'is' operand ${v}`);
        // Followed topics (feature level 265) and messages muted for the viewer, the
        // inverse of in:home among stream messages (366).
        if (v === 'followed') {
          out.push({ op: 'topics', topics: await userTopics.listKeysOfUser(q, viewer.id, [VisibilityPolicy.FOLLOWED]), negated });
          break;
        }
        if (v === 'muted') {
          out.push(await mutingTerm(q, viewer, !negated));
          break;
        }
        out.push({ op: 'is', what: v === 'dm' ? 'private' : (v as 'private'), negated });
        break;
      }
      case 'in': {
        const v = String(t.operand);
        if (v === 'all') {
          out.push({ op: 'none', negated });
        } else if (v === 'home') {
          out.push(await mutingTerm(q, viewer, negated));
        } else {
          throw badNarrow(`unknown 'in' operand ${v}`);
        }
        break;
      }
      case 'streams': {
        if (String(t.operand) !== 'public') throw badNarrow(`unknown streams operand ${String(t.operand)}`);
        const all = await streams.listByRealm(q, viewer.realm_id);
        const ids = all.filter((s) => s.invite_only === 0 && canReadHistory(viewer, s, null)).map((s) => s.id);
        if (!negated) history.push(...ids);
        out.push({ op: 'streams-public', streamIds: ids, negated });
        break;
      }
      case 'id': {
        // Zulip's check: the operand's digits only, so no sign, no fraction.
        const n = Number(t.operand);
        if (!/^\d+$/.test(String(t.operand)) || !Number.isSafeInteger(n)) throw badNarrow('Invalid message ID');
        out.push({ op: 'id', id: n, negated });
        break;
      }
      case 'near':
        out.push({ op: 'none', negated: false });
        break;
      case 'has': {
        const v = String(t.operand);
        // `reaction`: level 249 (taken at any level, as every request is).
        if (v !== 'link' && v !== 'image' && v !== 'attachment' && v !== 'reaction') throw badNarrow(`unknown 'has' operand ${v}`);
        out.push({ op: 'has', what: v, negated });
        break;
      }
      case 'search': {
        const words = String(t.operand).toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '');
        // No words (empty, or only punctuation or emoji): Zulip's full-text query has no
        // lexemes and matches nothing (its negation, everything).
        out.push(words.length ? { op: 'search', words, negated } : { op: 'id', id: NOBODY, negated });
        break;
      }
      default:
        throw badNarrow(`unknown operator ${t.operator}`);
    }
  }
  // History of a stream is readable only when every stream term allows it.
  const streamTerms = out.filter((x): x is Extract<ResolvedTerm, { op: 'stream' }> => x.op === 'stream' && !x.negated);
  const historyIds = streamTerms.length > 1 && new Set(streamTerms.map((s) => s.streamId)).size > 1 ? [] : [...new Set(history)];
  return { terms: out, historyStreamIds: historyIds };
}
