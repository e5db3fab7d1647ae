import { cacheSignal, type CacheScope, type CacheSignal } from './signal.js';

/** A row of the presence answer: an active human's presence, with their email and settings. */
export interface PresenceAnswerRow {
  user_id: number;
  client: string;
  last_active_time: number;
  last_connected_time: number;
  email: string;
  settings: string;
}

interface Snapshot { version: number; loadedAt: number; rows: Map<number, PresenceAnswerRow> }

/** A user's part of the answer, serialised (`"key":value`) for either keying, and whether it is shown at all. */
export interface PresencePart { shown: boolean; byEmail: string; byId: string }

/** What was made of a row, for as long as the row and the variant (active or idle, say) are the same. */
interface Part { row: PresenceAnswerRow; variant: string; value: PresencePart }

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
 * part of the answer, serialised) is kept until the row changes or the variant does.
 *
 * A patch keeps whichever row is newer, so patches and loads may meet in any order; a
 * patch that arrives while the rows are being read is applied on top of them.
 */
export class PresenceCache {
  private realms = new Map<number, Snapshot>();
  private loading = new Map<number, { done: Promise<Snapshot>; patches: PresenceAnswerRow[] }>();
  private parts = new Map<number, Part>();

  constructor(private signal: CacheSignal = cacheSignal) {}

  /** The organization's rows (`load` reads them when they are not held); shared: never to be changed. */
  async rows(realmId: number, load: () => Promise<PresenceAnswerRow[]>): Promise<Iterable<PresenceAnswerRow>> {
    return (await this.snapshot(realmId, load)).rows.values();
  }

  /** What `make` makes of `row` in `variant`, made again only when either changes. */
  part(row: PresenceAnswerRow, variant: string, make: () => PresencePart): PresencePart {
    const p = this.parts.get(row.user_id);
    if (p && p.row === row && p.variant === variant) return p.value;
    if (this.parts.size >= MAX_USERS) this.parts.clear();
    const value = make();
    this.parts.set(row.user_id, { row, variant, value });
    return value;
  }

  /** A presence just stored (on this node or another). */
  patch(realmId: number, row: PresenceAnswerRow): void {
    const s = this.realms.get(realmId);
    if (s) keepNewer(s.rows, row);
    this.loading.get(realmId)?.patches.push(row);
  }

  private snapshot(realmId: number, load: () => Promise<PresenceAnswerRow[]>): Snapshot | Promise<Snapshot> {
    const version = this.signal.version(SCOPES);
    const s = this.realms.get(realmId);
    if (s && s.version === version && Date.now() - s.loadedAt < RELOAD_MS) return s;
    const pending = this.loading.get(realmId);
    if (pending) return pending.done;
    const patches: PresenceAnswerRow[] = [];
    const done = load().then((rows) => {
      const map = new Map(rows.map((r) => [r.user_id, r]));
      for (const p of patches) keepNewer(map, p);
      const made = { version, loadedAt: Date.now(), rows: map };
      this.realms.set(realmId, made);
      return made;
    }).finally(() => this.loading.delete(realmId));
    this.loading.set(realmId, { done, patches });
    return done;
  }
}

function keepNewer(rows: Map<number, PresenceAnswerRow>, row: PresenceAnswerRow): void {
  const cur = rows.get(row.user_id);
  if (cur && (cur.last_connected_time > row.last_connected_time
    || (cur.last_connected_time === row.last_connected_time && cur.last_active_time >= row.last_active_time))) return;
  rows.set(row.user_id, row);
}
