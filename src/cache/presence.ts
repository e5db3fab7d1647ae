import { userSettings } from '../lib/user-settings.js';
import { ACTIVE_WINDOW_SECS, presenceDict, type PresenceRow } from '../presenters/presence.js';
import { cacheSignal, type CacheScope, type CacheSignal } from './signal.js';

/** A row of the presence answer: an active human's presence, with their email and settings. */
export interface PresenceAnswerRow extends PresenceRow { email: string; settings: string }

interface Snapshot { version: number; loadedAt: number; rows: Map<number, PresenceAnswerRow> }

interface Fragment { row: PresenceAnswerRow; active: boolean; shown: boolean; emailKey: string; json: string }

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
 * (cache/retire.ts carries the patch over the bus). Each user's part of the answer is
 * kept serialised until their row changes or they turn idle.
 *
 * A patch keeps whichever row is newer, so patches and loads may meet in any order; a
 * patch that arrives while the rows are being read is applied on top of them.
 */
export class PresenceCache {
  private realms = new Map<number, Snapshot>();
  private loading = new Map<number, { done: Promise<Snapshot>; patches: PresenceAnswerRow[] }>();
  private parts = new Map<number, Fragment>();

  constructor(private signal: CacheSignal = cacheSignal) {}

  /** The answer's `presences` as JSON, keyed by email, or by user id when `slim`; rows connected before `since` are left out. */
  async answer(realmId: number, slim: boolean, now: number, since: number, load: () => Promise<PresenceAnswerRow[]>): Promise<string> {
    const snapshot = await this.snapshot(realmId, load);
    let out = '';
    for (const r of snapshot.rows.values()) {
      if (r.last_connected_time < since) continue;
      const f = this.part(r, now);
      if (f.shown) out += `${out ? ',' : ''}${slim ? `"${r.user_id}"` : f.emailKey}:${f.json}`;
    }
    return `{${out}}`;
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

  private part(r: PresenceAnswerRow, now: number): Fragment {
    const active = now - r.last_active_time <= ACTIVE_WINDOW_SECS;
    const f = this.parts.get(r.user_id);
    if (f && f.row === r && f.active === active) return f;
    if (this.parts.size >= MAX_USERS) this.parts.clear();
    const made: Fragment = {
      row: r, active, shown: userSettings(r.settings).presence_enabled === true,
      emailKey: JSON.stringify(r.email), json: JSON.stringify(presenceDict(r, now)),
    };
    this.parts.set(r.user_id, made);
    return made;
  }
}

function keepNewer(rows: Map<number, PresenceAnswerRow>, row: PresenceAnswerRow): void {
  const cur = rows.get(row.user_id);
  if (cur && (cur.last_connected_time > row.last_connected_time
    || (cur.last_connected_time === row.last_connected_time && cur.last_active_time >= row.last_active_time))) return;
  rows.set(row.user_id, row);
}
