import type { AttachmentRow, Q } from '../rows.js';

export type { AttachmentRow };

export const attachments = {
  insert: async (q: Q, row: Omit<AttachmentRow, 'id'>): Promise<number> =>
    (await q.insertInto('attachment').values(row).returning('id').executeTakeFirstOrThrow()).id,

  findById: (q: Q, id: number): Promise<AttachmentRow | undefined> =>
    q.selectFrom('attachment').selectAll().where('id', '=', id).executeTakeFirst(),

  findByPathId: (q: Q, pathId: string): Promise<AttachmentRow | undefined> =>
    q.selectFrom('attachment').selectAll().where('path_id', '=', pathId).executeTakeFirst(),

  listByPathIds: (q: Q, realmId: number, pathIds: string[]): Promise<AttachmentRow[]> =>
    pathIds.length === 0 ? Promise.resolve([]) : q.selectFrom('attachment').selectAll().where('realm_id', '=', realmId).where('path_id', 'in', pathIds).execute(),

  listByOwner: (q: Q, ownerId: number): Promise<AttachmentRow[]> =>
    q.selectFrom('attachment').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute(),

  /** Bytes of every file of the organization (Zulip's currently_used_upload_space_bytes). */
  sumSizeOfRealm: async (q: Q, realmId: number): Promise<number> =>
    Number((await q.selectFrom('attachment').select((eb) => eb.fn.sum<number>('size').as('total')).where('realm_id', '=', realmId).executeTakeFirst())?.total ?? 0),

  delete: async (q: Q, id: number): Promise<boolean> =>
    Number((await q.deleteFrom('attachment').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,

  /** The messages linking each of these files, oldest first, with their send times. */
  listMessages: async (q: Q, attachmentIds: number[]): Promise<Array<{ attachment_id: number; message_id: number; date_sent: number }>> =>
    attachmentIds.length === 0 ? [] : q.selectFrom('attachment_message').innerJoin('message', 'message.id', 'attachment_message.message_id')
      .select(['attachment_message.attachment_id', 'attachment_message.message_id', 'message.date_sent'])
      .where('attachment_message.attachment_id', 'in', attachmentIds).orderBy('attachment_message.message_id').execute(),

  listMessageIds: async (q: Q, attachmentId: number): Promise<number[]> =>
    (await q.selectFrom('attachment_message').select('message_id').where('attachment_id', '=', attachmentId).orderBy('message_id').execute()).map((r) => r.message_id),

  /** The files this message links. */
  listIdsOfMessage: async (q: Q, messageId: number): Promise<number[]> =>
    (await q.selectFrom('attachment_message').select('attachment_id').where('message_id', '=', messageId).execute()).map((r) => r.attachment_id),

  linkMessage: async (q: Q, attachmentIds: number[], messageId: number): Promise<void> => {
    if (attachmentIds.length === 0) return;
    await q.insertInto('attachment_message').values(attachmentIds.map((attachment_id) => ({ attachment_id, message_id: messageId })))
      .onConflict((oc) => oc.columns(['attachment_id', 'message_id']).doNothing()).execute();
  },

  unlinkMessage: async (q: Q, attachmentIds: number[], messageId: number): Promise<void> => {
    if (attachmentIds.length === 0) return;
    await q.deleteFrom('attachment_message').where('message_id', '=', messageId).where('attachment_id', 'in', attachmentIds).execute();
  },

  /**
   * Files no message links that were uploaded before `before` (seconds): Zulip's unclaimed
   * attachments. A message retention archived still links its files until the archive is
   * purged (Zulip's ArchivedAttachment): a restore must find them. `page`: the next `limit` of them after id `afterId`, of one organization if told.
   */
  listUnclaimed: (q: Q, before: number, page?: { afterId: number; limit: number; realmId?: number }): Promise<AttachmentRow[]> => {
    let query = q.selectFrom('attachment').selectAll().where('create_time', '<', before)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('attachment_message').select('attachment_message.message_id').whereRef('attachment_message.attachment_id', '=', 'attachment.id'))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('archived_attachment_message').select('archived_attachment_message.message_id')
        .whereRef('archived_attachment_message.attachment_id', '=', 'attachment.id'))));
    if (page) query = query.where('id', '>', page.afterId).limit(page.limit);
    if (page?.realmId !== undefined) query = query.where('realm_id', '=', page.realmId);
    return query.orderBy('id').execute();
  },

  /**
   * What the organization's people have written but not sent that names an upload: drafts,
   * scheduled messages not yet delivered, saved snippets. None of these claims a file (only
   * a sent message does), yet each will link it once sent.
   */
  listUnsentTextsNamingUploads: async (q: Q, realmId: number): Promise<string[]> => {
    const naming = '%/user_uploads/%';
    const drafts = await q.selectFrom('draft').innerJoin('users', 'users.id', 'draft.user_id').select('draft.content')
      .where('users.realm_id', '=', realmId).where('draft.content', 'like', naming).execute();
    const scheduled = await q.selectFrom('scheduled_message').select('content')
      .where('realm_id', '=', realmId).where('delivered', '=', 0).where('content', 'like', naming).execute();
    const snippets = await q.selectFrom('saved_snippet').innerJoin('users', 'users.id', 'saved_snippet.user_id').select('saved_snippet.content')
      .where('users.realm_id', '=', realmId).where('saved_snippet.content', 'like', naming).execute();
    return [...drafts, ...scheduled, ...snippets].map((r) => r.content);
  },

  /** Whether a message links the file now, or an archived one that a restore may bring back. */
  isClaimed: async (q: Q, attachmentId: number): Promise<boolean> =>
    (await q.selectFrom('attachment_message').select('message_id').where('attachment_id', '=', attachmentId).limit(1).executeTakeFirst()) !== undefined
    || (await q.selectFrom('archived_attachment_message').select('message_id').where('attachment_id', '=', attachmentId).limit(1).executeTakeFirst()) !== undefined,

  /** Deletes the file's row unless a message links it now; true when it went. */
  deleteUnclaimed: async (q: Q, id: number): Promise<boolean> =>
    Number((await q.deleteFrom('attachment').where('id', '=', id)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('attachment_message').select('attachment_message.message_id').whereRef('attachment_message.attachment_id', '=', 'attachment.id'))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('archived_attachment_message').select('archived_attachment_message.message_id')
        .whereRef('archived_attachment_message.attachment_id', '=', 'attachment.id'))))
      .executeTakeFirst()).numDeletedRows) > 0,
};
