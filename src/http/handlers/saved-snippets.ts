import { done, NoAnswer, pathInt, route, type Route } from '../route.js';
import { Opt, Str, Type } from '../../schemas/params.js';
import { WireSavedSnippet } from '../../schemas/wire.js';
import { badRequest } from '../../errors.js';
import { transact } from '../../actions/transaction.js';
import { doCreateSavedSnippet, doDeleteSavedSnippet, doEditSavedSnippet } from '../../actions/saved-snippets.js';
import { savedSnippetsOf } from '../../reads/saved-snippets.js';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH and MAX_MESSAGE_LENGTH. */
const LIMITS = { title: 60, content: 10_000 } as const;

/**
 * Zulip's StringConstraints(min_length=1, max_length, strip_whitespace=True) and the
 * typed_endpoint messages: stripped first, then not blank, then not too long.
 */
function text(name: keyof typeof LIMITS, raw: string): string {
  const v = raw.trim();
  if (v === '') throw badRequest(`${name} cannot be blank`);
  if ([...v].length > LIMITS[name]) throw badRequest(`${name} is too long (limit: ${LIMITS[name]} characters)`);
  return v;
}

export const savedSnippetRoutes: Route[] = [
  route({
    method: 'GET', path: '/saved_snippets', auth: 'user', summary: 'Get saved snippets',
    answer: Type.Object({ saved_snippets: Type.Array(WireSavedSnippet) }),
    handler: async (r) => ({ saved_snippets: await savedSnippetsOf(r.ctx.store.db, r.user.id) }),
  }),
  route({
    method: 'POST', path: '/saved_snippets', auth: 'user', summary: 'Create a saved snippet (feature level 297)',
    params: { title: Str({ description: 'At most 60 characters, surrounding whitespace stripped' }), content: Str({ description: 'At most 10000 characters' }) },
    answer: Type.Object({ saved_snippet_id: Type.Integer() }),
    handler: async (r) => {
      const title = text('title', r.args.title);
      const content = text('content', r.args.content);
      return { saved_snippet_id: await transact(r.ctx, (tx) => doCreateSavedSnippet(tx, r.user, title, content)) };
    },
  }),
  route({
    method: 'PATCH', path: '/saved_snippets/:saved_snippet_id', auth: 'user', summary: 'Edit a saved snippet (feature level 368)',
    params: { title: Opt(Str()), content: Opt(Str()) },
    answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'saved_snippet_id');
      const title = r.args.title === undefined ? undefined : text('title', r.args.title);
      const content = r.args.content === undefined ? undefined : text('content', r.args.content);
      // As Zulip: nothing to change is a success that sends no event.
      if (title === undefined && content === undefined) return {};
      return done(transact(r.ctx, (tx) => doEditSavedSnippet(tx, r.user, id, title, content)));
    },
  }),
  route({
    method: 'DELETE', path: '/saved_snippets/:saved_snippet_id', auth: 'user', summary: 'Delete a saved snippet', answer: NoAnswer,
    handler: async (r) => {
      const id = pathInt(r, 'saved_snippet_id');
      return done(transact(r.ctx, (tx) => doDeleteSavedSnippet(tx, r.user, id)));
    },
  }),
];
