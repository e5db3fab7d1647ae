import { sql } from 'kysely';
import type { DB } from '../schema.js';
import type { Q } from '../rows.js';
import { insertFlat, insertMany, insertStatements } from '../bulk.js';
import { dialectOf, type Store } from '../db.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { rowsWritten } from '../changes.js';

/** Tables whose rows belong to a realm through a user (deleted with the realm's users). */
const BY_USER = ['user_message', 'reaction', 'subscription', 'user_topic', 'draft', 'saved_snippet', 'bot_storage', 'push_device',
  'digest_state', 'push_active', 'missed_message_notification', 'muted_user', 'user_status', 'alert_word', 'user_presence', 'session', 'idle_mark'] as const;
/** Tables with a realm_id of their own. */
const BY_REALM = ['email_change', 'scheduled_message', 'realm_filter', 'realm_playground', 'tus_upload', 'realm_emoji', 'invite',
  'default_stream', 'push_realm', 'custom_profile_field', 'user_group', 'sso_token'] as const;

/** What the importer writes with: bulk inserts with explicit ids, and the removal of an import that failed. */
export const realmImport = {
  insertRows: (q: Q, table: keyof DB & string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Promise<void> =>
    insertMany(q, table, columns, rows),

  /** Rows laid end to end, `columns.length` values each. */
  insertFlat: (q: Q, table: keyof DB & string, columns: readonly string[], values: readonly unknown[]): Promise<void> =>
    insertFlat(q, table, columns, values),

  /** Reserved once the transaction commits: see insertScript. */
  nextMessageIds: (q: Q, n: number): Promise<number[]> => dialectOf(q).nextIds(q, 'message', n),

  /**
   * Rows of several tables (values end to end, as insertFlat) as one transaction that the
   * store runs as a script: on an SQLite file the writer thread stores them while the
   * importer's thread renders the next chunk, where a transaction of its own would hold that
   * thread for every statement. Ids given explicitly must be reserved before (nextMessageIds).
   */
  insertScript: async (store: Store, inserts: ReadonlyArray<{ table: keyof DB & string; columns: readonly string[]; values: readonly unknown[] }>): Promise<void> => {
    await store.script(inserts.flatMap((i) => insertStatements(store.db, i.table, i.columns, i.values)));
  },

  /** The first message of each of the realm's streams (streams keep it: clients show where history starts). */
  setStreamFirstMessage: async (q: Q, streamId: number, messageId: number): Promise<void> => {
    await q.updateTable('stream').set({ first_message_id: messageId }).where('id', '=', streamId).execute();
  },

  /**
   * Everything of a realm, children first: what an import that failed leaves. Huddles are
   * keyed by their members, not a realm: the caller names the ones it made (a huddle row
   * left by a killed import names users that no longer exist, and ids are never reused).
   */
  purge: async (q: Q, realmId: number, huddleIds: readonly number[]): Promise<void> => {
    const realmUsers = q.selectFrom('users').select('id').where('realm_id', '=', realmId);
    const realmStreams = q.selectFrom('stream').select('id').where('realm_id', '=', realmId);
    const realmMessages = q.selectFrom('message').select('id').where('realm_id', '=', realmId);
    await q.deleteFrom('user_message').where('message_id', 'in', realmMessages).execute();
    await q.deleteFrom('reaction').where('message_id', 'in', realmMessages).execute();
    await q.deleteFrom('attachment_message').where('attachment_id', 'in', q.selectFrom('attachment').select('id').where('realm_id', '=', realmId)).execute();
    await q.deleteFrom('message').where('realm_id', '=', realmId).execute();
    await q.deleteFrom('attachment').where('realm_id', '=', realmId).execute();
    for (const table of BY_USER) {
      await sql`DELETE FROM ${sql.table(table)} WHERE user_id IN (SELECT id FROM users WHERE realm_id = ${realmId})`.execute(q);
    }
    await q.deleteFrom('bot_service').where('bot_id', 'in', realmUsers).execute();
    await q.deleteFrom('custom_profile_field_value').where('field_id', 'in', q.selectFrom('custom_profile_field').select('id').where('realm_id', '=', realmId)).execute();
    const groups = q.selectFrom('user_group').select('id').where('realm_id', '=', realmId);
    await q.deleteFrom('user_group_member').where('group_id', 'in', groups).execute();
    await q.deleteFrom('user_group_subgroup').where((eb) => eb.or([eb('supergroup_id', 'in', groups), eb('subgroup_id', 'in', groups)])).execute();
    for (const table of BY_REALM) await sql`DELETE FROM ${sql.table(table)} WHERE realm_id = ${realmId}`.execute(q);
    await q.deleteFrom('recipient').where((eb) => eb.or([
      eb.and([eb('type', '=', RecipientType.PERSONAL), eb('type_id', 'in', realmUsers)]),
      eb.and([eb('type', '=', RecipientType.STREAM), eb('type_id', 'in', realmStreams)]),
      ...(huddleIds.length > 0 ? [eb.and([eb('type', '=', RecipientType.HUDDLE), eb('type_id', 'in', [...huddleIds])])] : []),
    ])).execute();
    if (huddleIds.length > 0) await q.deleteFrom('huddle').where('id', 'in', [...huddleIds]).execute();
    await q.deleteFrom('stream').where('realm_id', '=', realmId).execute();
    await q.deleteFrom('users').where('realm_id', '=', realmId).execute();
    await q.deleteFrom('realm').where('id', '=', realmId).execute();
    rowsWritten(q, 'realms');
    rowsWritten(q, 'users');
    rowsWritten(q, 'streams');
  },
};
