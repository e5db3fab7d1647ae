import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Code playgrounds (Zulip's RealmPlayground, feature level 49): links from a code block of a
 * language to an external site. Stored as level 196's URL template; a level-122 client's
 * url_prefix is kept as `<prefix>{code}`. (realm, pygments_language, name) is unique, as in Zulip.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('realm_playground');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realm.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('pygments_language', 'text', (c) => c.notNull())
    .addColumn('url_template', 'text', (c) => c.notNull())
    .addUniqueConstraint('realm_playground_unique', ['realm_id', 'pygments_language', 'name'])
    .execute();
}
