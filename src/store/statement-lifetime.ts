/**
 * Past this many distinct SQL texts, a connection's statement cache starts again on a new
 * connection. Statements are never dropped from a live cache (see KEPT in db.ts: a
 * better-sqlite3 object the garbage collector frees can abort the process on Node 24), so
 * the number of texts must stay small, and this bounds it should it not.
 */
export const MAX_STATEMENTS = 2000;
