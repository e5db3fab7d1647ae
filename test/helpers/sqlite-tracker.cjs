/**
 * Preloaded (--require, with --expose-gc) into the processes of test/store/sqlite-lifetime.test.ts
 * and into their worker threads. It follows every statement better-sqlite3 prepares on the
 * thread, pragma()'s own included, and as the thread exits runs a full collection and prints
 * how many were collected: any is one that Node 24 could have collected outside a context,
 * and aborted on (see KEPT in src/store/db.ts). A collection started from JavaScript, as here,
 * is safe on every Node.
 */
'use strict';
const fs = require('node:fs');
const { threadId } = require('node:worker_threads');
const Database = require('better-sqlite3');
const { cppdb } = require('better-sqlite3/lib/util');

const refs = [];
// A database of its own to find the native prototype by, kept (on the global) as the project keeps its own.
const probe = new Database(':memory:');
globalThis[Symbol.for('parley.sqliteTracker')] = probe;
const native = Object.getPrototypeOf(probe[cppdb]);
const prepare = native.prepare;
native.prepare = function (...args) {
  const stmt = prepare.apply(this, args);
  refs.push(new WeakRef(stmt));
  return stmt;
};
process.on('exit', () => {
  globalThis.gc();
  const collected = refs.filter((r) => r.deref() === undefined).length;
  fs.writeSync(2, `sqlite-tracker ${JSON.stringify({ thread: threadId, prepared: refs.length, collected })}\n`);
});
