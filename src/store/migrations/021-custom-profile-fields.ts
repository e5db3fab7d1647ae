import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Custom profile fields (Zulip's CustomProfileField) and users' values of them
 * (CustomProfileFieldValue). `field_data` is JSON text as Zulip keeps it ('' for the types
 * without any). Values appear in the realm's cached user lists (register's realm_users),
 * so both tables join the cache epoch of migration 012.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const table = db.schema.createTable('custom_profile_field');
  await (dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hint', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('field_type', 'integer', (c) => c.notNull())
    .addColumn('field_data', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('order', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('custom_profile_field_realm_name').unique().on('custom_profile_field').columns(['realm_id', 'name']).execute();
  await db.schema.createTable('custom_profile_field_value')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('field_id', 'integer', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('rendered_value', 'text')
    .addPrimaryKeyConstraint('custom_profile_field_value_pk', ['user_id', 'field_id'])
    .execute();
  await db.schema.createIndex('custom_profile_field_value_field').on('custom_profile_field_value').column('field_id').execute();
  for (const t of ['custom_profile_field', 'custom_profile_field_value']) {
    if (dialect === 'sqlite') {
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        await sql.raw(`CREATE TRIGGER ${t}_epoch_${op.toLowerCase()} AFTER ${op} ON ${t} BEGIN
          UPDATE cache_epoch SET value = value + 1 WHERE id = 1; END`).execute(db);
      }
    } else {
      // bump_cache_epoch() is migration 012's.
      await sql.raw(`CREATE TRIGGER ${t}_epoch AFTER INSERT OR UPDATE OR DELETE ON ${t}
        FOR EACH STATEMENT EXECUTE FUNCTION bump_cache_epoch()`).execute(db);
    }
  }
}
