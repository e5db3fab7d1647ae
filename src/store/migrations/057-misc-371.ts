import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Zulip 10's miscellany:
 * - tus_upload (feature level 295): a resumable upload under way at /api/v1/tus. Its bytes
 *   are stored as they arrive, one storage object per PATCH (`chunks`, their offsets as
 *   JSON), and joined into the attachment when the last arrives; `received` is the tus
 *   Upload-Offset (a reserved word in SQL). `path_id` is the attachment's, once done.
 * - custom_profile_field.editable_by_user (level 296): 0/1, Zulip's default 1.
 * - invite.group_ids (level 322): the user groups an invited user joins, as JSON.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createTable('tus_upload')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('length', 'integer', (c) => c.notNull())
    .addColumn('received', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('chunks', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('path_id', 'text')
    .addColumn('create_time', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('custom_profile_field').addColumn('editable_by_user', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('invite').addColumn('group_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}
