import type { Q, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { users } from '../store/repos/users.js';
import { canReadHistory, canSeeStream } from '../access/stream.js';
import type { NarrowTerm, ResolvedTerm } from './types.js';
import { badNarrow } from './parse.js';

export interface ResolvedNarrow {
  terms: ResolvedTerm[];
  /** Streams whose history the viewer reads through this narrow without having received it. */
  historyStreamIds: number[];
}

const IS_VALUES = new Set(['private', 'dm', 'starred', 'mentioned', 'alerted', 'unread', 'resolved']);

async function userFor(q: Q, viewer: UserRow, operand: unknown): Promise<number> {
  const key = typeof operand === 'number' ? operand : String(operand).trim();
  const u = typeof key === 'number' || /^\d+$/.test(key)
    ? await users.findInRealm(q, viewer.realm_id, Number(key))
    : await users.findByEmail(q, viewer.realm_id, key);
  if (!u) throw badNarrow(`unknown user ${String(operand)}`);
  return u.id;
}

function asList(operand: unknown): unknown[] {
  if (Array.isArray(operand)) return operand;
  if (typeof operand === 'string') return operand.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [operand];
}

/** Names to ids, checked against what the viewer may see; unknown names are Zulip's BAD_NARROW errors. */
export async function resolveNarrow(q: Q, viewer: UserRow, terms: NarrowTerm[]): Promise<ResolvedNarrow> {
  const out: ResolvedTerm[] = [];
  const history: number[] = [];
  for (const t of terms) {
    const negated = t.negated;
    switch (t.operator) {
      case 'stream': {
        const s = typeof t.operand === 'number' || /^\d+$/.test(String(t.operand))
          ? await streams.findInRealm(q, viewer.realm_id, Number(t.operand))
          : await streams.findByName(q, viewer.realm_id, String(t.operand));
        const sub = s ? await q.selectFrom('subscription').selectAll().where('user_id', '=', viewer.id).where('stream_id', '=', s.id).where('active', '=', 1).executeTakeFirst() : undefined;
        // A stream the viewer may not see is as unknown as one that does not exist.
        if (!s || !canSeeStream(viewer, s, sub ?? null)) throw badNarrow('unknown stream');
        if (!negated && canReadHistory(viewer, s, sub ?? null)) history.push(s.id);
        out.push({ op: 'stream', streamId: s.id, negated });
        break;
      }
      case 'topic':
        out.push({ op: 'topic', topicLower: String(t.operand).toLowerCase(), negated });
        break;
      case 'sender':
        out.push({ op: 'sender', userId: await userFor(q, viewer, t.operand), negated });
        break;
      case 'pm-with': {
        const ids = new Set<number>([viewer.id]);
        for (const x of asList(t.operand)) ids.add(await userFor(q, viewer, x));
        out.push({ op: 'pm-with', memberIds: [...ids].sort((a, b) => a - b), negated });
        break;
      }
      case 'group-pm-with':
        out.push({ op: 'group-pm-with', userId: await userFor(q, viewer, t.operand), negated });
        break;
      case 'dm-including':
        out.push({ op: 'dm-including', userId: await userFor(q, viewer, t.operand), negated });
        break;
      case 'is': {
        const v = String(t.operand);
        if (!IS_VALUES.has(v)) throw badNarrow(`unknown 'is' operand ${v}`);
        out.push({ op: 'is', what: v === 'dm' ? 'private' : (v as 'private'), negated });
        break;
      }
      case 'in': {
        const v = String(t.operand);
        if (v === 'all') {
          out.push({ op: 'none', negated });
        } else if (v === 'home') {
          const muted = await q.selectFrom('subscription').select('stream_id').where('user_id', '=', viewer.id).where('active', '=', 1).where('is_muted', '=', 1).execute();
          const topics = await q.selectFrom('muted_topic').select(['stream_id', 'topic_lower']).where('user_id', '=', viewer.id).execute();
          out.push({ op: 'in-home', mutedStreamIds: muted.map((m) => m.stream_id), mutedTopics: topics.map((m) => [m.stream_id, m.topic_lower] as [number, string]), negated });
        } else {
          throw badNarrow(`unknown 'in' operand ${v}`);
        }
        break;
      }
      case 'streams': {
        if (String(t.operand) !== 'public') throw badNarrow(`invalid streams operand ${String(t.operand)}`);
        const all = await streams.listByRealm(q, viewer.realm_id);
        const ids = all.filter((s) => s.invite_only === 0 && canReadHistory(viewer, s, null)).map((s) => s.id);
        if (!negated) history.push(...ids);
        out.push({ op: 'streams-public', streamIds: ids, negated });
        break;
      }
      case 'id': {
        const n = Number(t.operand);
        if (!Number.isSafeInteger(n)) throw badNarrow(`invalid message ID ${String(t.operand)}`);
        out.push({ op: 'id', id: n, negated });
        break;
      }
      case 'near':
        out.push({ op: 'none', negated: false });
        break;
      case 'has': {
        const v = String(t.operand);
        if (v !== 'link' && v !== 'image' && v !== 'attachment') throw badNarrow(`unknown 'has' operand ${v}`);
        out.push({ op: 'has', what: v, negated });
        break;
      }
      case 'search': {
        const words = String(t.operand).toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '');
        out.push(words.length ? { op: 'search', words, negated } : { op: 'none', negated: false });
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
