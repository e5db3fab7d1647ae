import { cacheSignal, type CacheScope, type CacheSignal } from './signal.js';

/** A row of the presence answer: an active human's presence, with their email and settings. */
export interface PresenceAnswerRow {
  user_id: number;
  client: string;
  last_active_time: number;
  last_connected_time: number;
  /** The organization's number for the write that made this row (migration 034). */
  last_update_id: number;
  email: string;
  settings: string;
}

/** What a load reads: the rows, and the realm's highest number, every write up to which is in them. */
export interface PresenceLoad { rows: PresenceAnswerRow[]; maxId: number }

interface Snapshot {
  version: number;
  loadedAt: number;
  rows: Map<number, PresenceAnswerRow>;
  /**
   * The rows in the order of their numbers, oldest first, superseded ones included (a row
   * is current while `rows` holds it): where an incremental answer starts, found by
   * bisection. Rebuilt from `rows` when superseded entries outnumber current ones.
   */
  log: PresenceAnswerRow[];
  /** Every write numbered up to this one is in `rows`. */
  complete: number;
  /** Numbers seen above `complete`, waiting for the ones below them (a patch still on its way). */
  ahead: Set<number>;
}

/** A user's part of the answer, serialised (`"key":value`) for either keying, and whether it is shown at all. */
export interface PresencePart { shown: boolean; byEmail: string; byId: string }

/** What was made of a row, per variant (the format, and for the oldest format active or idle), for as long as the row is the same. */
interface Part { row: PresenceAnswerRow; values: Map<string, PresencePart> }

interface Patch { row: PresenceAnswerRow; listed: boolean }

/** Who is an active human, with which email and settings: a change to either reloads the organization's rows. */
const SCOPES: readonly CacheScope[] = ['users', 'realms'];
/** The bound on how long a write nobody announced (a hand-run statement) can go unseen. */
const RELOAD_MS = 60_000;
const MAX_USERS = 200_000;

/**
 * The presence answer. Every client reports its presence once a minute and is answered
 * with the whole organization's, so at 2,000 users a 300 KB answer was read (2.5 ms of
 * SQLite), built and serialised 33 times a second: most of a server's CPU beside event
 * delivery. Here each organization's rows are read once and then kept current by the
 * writes themselves: every node patches its copy when a presence is stored, on any node
 * (cache/retire.ts carries the patch over the bus). What a reader makes of each row (its
 * part of the answer, serialised) is kept until the row changes.
 *
 * Clients of feature level 263 ask only for the rows written since the number they last
 * saw (`last_update_id`): `since` finds them from the end of the log, and `complete`
 * says up to which number the copy is sure to have every write, whatever order the
 * patches of several nodes arrive in (the numbers have no gaps: repos/presence.ts).
 *
 * A patch keeps whichever row is newer (by number), so patches and loads may meet in
 * any order; a patch that arrives while the rows are being read is applied on top of them.
 */
export class PresenceCache {
  private realms = new Map<number, Snapshot>();
  private loading = new Map<number, { done: Promise<Snapshot>; patches: Patch[] }>();
  private parts = new Map<number, Part>();

  constructor(private signal: CacheSignal = cacheSignal) {}

  /**
   * The organization's rows (`load` reads them when they are not held; shared: never to be
   * changed), and the number up to which they have every write.
   */
  async rows(realmId: number, load: () => Promise<PresenceLoad>): Promise<{ rows: Iterable<PresenceAnswerRow>; complete: number }> {
    const s = await this.snapshot(realmId, load);
    return { rows: s.rows.values(), complete: s.complete };
  }

  /**
   * The rows written after number `after`, and the number up to which the answer has every
   * write: what the client is to send next time (rows above it may come again: harmless).
   */
  async since(realmId: number, after: number, load: () => Promise<PresenceLoad>): Promise<{ rows: PresenceAnswerRow[]; complete: number }> {
    const s = await this.snapshot(realmId, load);
    const { log } = s;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid]!.last_update_id > after) hi = mid;
      else lo = mid + 1;
    }
    const rows: PresenceAnswerRow[] = [];
    for (let i = lo; i < log.length; i++) if (s.rows.get(log[i]!.user_id) === log[i]) rows.push(log[i]!);
    return { rows, complete: s.complete };
  }

  /** What `make` makes of `row` in `variant`, made again only when the row changes. */
  part(row: PresenceAnswerRow, variant: string, make: () => PresencePart): PresencePart {
    let p = this.parts.get(row.user_id);
    if (!p || p.row !== row) {
      if (this.parts.size >= MAX_USERS) this.parts.clear();
      p = { row, values: new Map() };
      this.parts.set(row.user_id, p);
    }
    let value = p.values.get(variant);
    if (!value) p.values.set(variant, (value = make()));
    return value;
  }

  /** A presence just stored (on this node or another); `listed` false: a row the answer leaves out, counted all the same. */
  patch(realmId: number, row: PresenceAnswerRow, listed = true): void {
    const s = this.realms.get(realmId);
    if (s) apply(s, { row, listed });
    this.loading.get(realmId)?.patches.push({ row, listed });
  }

  private snapshot(realmId: number, load: () => Promise<PresenceLoad>): Snapshot | Promise<Snapshot> {
    const version = this.signal.version(SCOPES);
    const s = this.realms.get(realmId);
    if (s && s.version === version && Date.now() - s.loadedAt < RELOAD_MS) return s;
    const pending = this.loading.get(realmId);
    if (pending) return pending.done;
    const patches: Patch[] = [];
    const done = load().then(({ rows, maxId }) => {
      const map = new Map(rows.map((r) => [r.user_id, r]));
      const made: Snapshot = { version, loadedAt: Date.now(), rows: map, log: byNumber(map), complete: maxId, ahead: new Set() };
      for (const p of patches) apply(made, p);
      this.realms.set(realmId, made);
      return made;
    }).finally(() => this.loading.delete(realmId));
    this.loading.set(realmId, { done, patches });
    return done;
  }
}

const byNumber = (rows: Map<number, PresenceAnswerRow>): PresenceAnswerRow[] =>
  [...rows.values()].sort((a, b) => a.last_update_id - b.last_update_id);

function apply(s: Snapshot, { row, listed }: Patch): void {
  const id = row.last_update_id;
  if (id > s.complete) {
    s.ahead.add(id);
    while (s.ahead.delete(s.complete + 1)) s.complete++;
  }
  if (!listed) return;
  const cur = s.rows.get(row.user_id);
  if (cur && cur.last_update_id >= id) return;
  s.rows.set(row.user_id, row);
  // Patches come in their numbers' order but for a cluster's stragglers: those go in their place.
  const { log } = s;
  let at = log.length;
  while (at > 0 && log[at - 1]!.last_update_id > id) at--;
  log.splice(at, 0, row);
  if (log.length > 2 * s.rows.size + 64) s.log = byNumber(s.rows);
}
