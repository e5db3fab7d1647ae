import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { AnyJson, List, Type } from '../../schemas/params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { capList, isDict, type Json } from '../params.js';
import { transact } from '../../actions/transaction.js';
import { badRequest } from '../../errors.js';
import { checkDraftsSynchronized, doCreateDrafts, doDeleteDraft, doEditDraft, type DraftInput, type DraftType } from '../../actions/drafts.js';
import { draftsOf } from '../../reads/drafts.js';
import { WireDraft } from '../../schemas/wire.js';

const DRAFT_TYPES: readonly string[] = ['', 'stream', 'private'];
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Each key's check, given its name as Zulip's messages write it (`draft["to"]`). */
const CHECKS: Record<string, (at: string, v: Json) => void> = {
  type: (at, v) => {
    if (typeof v !== 'string') throw badRequest(`${at} is not a string`);
    if (!DRAFT_TYPES.includes(v)) throw badRequest(`Invalid ${at}`);
  },
  to: (at, v) => {
    if (!Array.isArray(v)) throw badRequest(`${at} is not a list`);
    capList(at, v, LIST_LIMITS.recipients);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw badRequest(`${at}[${i}] is not an integer`);
    });
  },
  topic: (at, v) => {
    if (typeof v !== 'string') throw badRequest(`${at} is not a string`);
  },
  content: (at, v) => {
    if (typeof v !== 'string') throw badRequest(`${at} is not a string`);
    if (v.trim() === '') throw badRequest(`${at} cannot be blank.`);
  },
};
const REQUIRED = Object.keys(CHECKS);

/**
 * Zulip's draft_dict_validator (check_dict_only), with its messages: each required key in
 * order, present and then valid; the optional timestamp; then any key it does not know
 * (`id` among them).
 */
function parseDraft(name: string, v: Json): DraftInput {
  if (!isDict(v)) throw badRequest(`${name} is not a dict`);
  for (const key of REQUIRED) {
    if (!has(v, key)) throw badRequest(`${key} key is missing from ${name}`);
    CHECKS[key]!(`${name}["${key}"]`, v[key]!);
  }
  if (has(v, 'timestamp') && (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp))) {
    throw badRequest(`${name}["timestamp"] is not an allowed_type`);
  }
  const unexpected = Object.keys(v).filter((k) => !REQUIRED.includes(k) && k !== 'timestamp');
  if (unexpected.length > 0) throw badRequest(`Unexpected arguments: ${unexpected.join(', ')}`);
  return {
    type: v.type as DraftType, to: v.to as number[], topic: v.topic as string, content: v.content as string,
    timestamp: v.timestamp as number | undefined,
  };
}

// As Zulip's draft_endpoint, the user's setting is checked before any parameter.
export const draftRoutes: Route[] = [
  route({
    method: 'GET', path: '/drafts', auth: 'user', summary: 'Get drafts', answer: Type.Object({ count: Type.Integer(), drafts: Type.Array(WireDraft) }),
    handler: async (r) => {
      checkDraftsSynchronized(r.user);
      return draftsOf(r.ctx.store.db, r.user.id);
    },
  }),
  route({
    method: 'POST', path: '/drafts', auth: 'user', summary: 'Create drafts',
    // The list's length and shape by the declaration, each draft by parseDraft (Zulip's order of checks).
    params: { drafts: List(AnyJson(), LIST_LIMITS.other) },
    answer: Type.Object({ ids: Type.Array(Type.Integer()) }),
    handler: async (r) => {
      checkDraftsSynchronized(r.user);
      const inputs = r.args.drafts.map((d, i) => parseDraft(`drafts[${i}]`, d as Json));
      return { ids: await transact(r.ctx, (tx) => doCreateDrafts(tx, r.user, inputs)) };
    },
  }),
  route({
    method: 'PATCH', path: '/drafts/:draft_id', auth: 'user', summary: 'Edit a draft', params: { draft: AnyJson() }, answer: NoAnswer,
    handler: async (r) => {
      checkDraftsSynchronized(r.user);
      const id = pathInt(r, 'draft_id');
      const input = parseDraft('draft', r.args.draft as Json);
      return done(transact(r.ctx, (tx) => doEditDraft(tx, r.user, id, input)));
    },
  }),
  route({
    method: 'DELETE', path: '/drafts/:draft_id', auth: 'user', summary: 'Delete a draft', answer: NoAnswer,
    handler: async (r) => {
      checkDraftsSynchronized(r.user);
      const id = pathInt(r, 'draft_id');
      return done(transact(r.ctx, (tx) => doDeleteDraft(tx, r.user, id)));
    },
  }),
];
