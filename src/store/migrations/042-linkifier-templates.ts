import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Linkifiers of feature levels 176 and 202: `url_template`, the RFC 6570 template a
 * linkifier made from level 176 links to (null: one made with a URL format string, which
 * still renders as Zulip 5 rendered it), and `position`, the order they apply in (Zulip's
 * RealmFilter.order), which PATCH /realm/linkifiers changes. Existing ones keep their
 * order, that of their ids.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('realm_filter').addColumn('url_template', 'text').execute();
  await db.schema.alterTable('realm_filter').addColumn('position', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.updateTable('realm_filter').set({ position: sql`id` }).execute();
}
