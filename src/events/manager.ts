import { ensurePrivateDir, writePrivateFile } from '../lib/private-files.js';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import type { EventEnvelope } from './types.js';
import type { BusPlace } from './bus.js';
import { EventQueue, type QueueOptions, type QueueState, type QueuedEvent } from './queue.js';
import { Personalizer } from './personalize.js';
import { badEventQueueId } from '../errors.js';
import { SERVER_GENERATION, versionFields } from '../lib/version.js';


/** Zulip's long-poll ceiling; a parked poll always answers before this. */
export const LONGPOLL_TIMEOUT_SECS = 90;

const HEARTBEAT = JSON.stringify({ type: 'heartbeat' });

/** What a cluster's handover needs of the node's queue manager. */
export interface HeldQueues {
  all(): Iterable<EventQueue>;
  find(id: string): EventQueue | undefined;
  add(q: EventQueue): void;
  remove(q: EventQueue, empty: boolean): void;
  /** Delivers one envelope to one queue, by the manager's own rules. */
  deliverTo(q: EventQueue, env: EventEnvelope, place: BusPlace): void;
}

/**
 * A cluster node's part in its queues' lives (src/cluster/queue-handover.ts): what the
 * manager calls. The wiring hands the manager a maker for it (src/wiring.ts), so that this
 * lower layer imports nothing from cluster/.
 */
export interface QueueHandoverPort {
  created(q: EventQueue, options: QueueOptions): Promise<void>;
  heard(env: EventEnvelope, place: BusPlace): void;
  polled(q: EventQueue): void;
  deleted(id: string, userId: number, mine: boolean): Promise<void>;
  expired(q: EventQueue): void;
  takeOver(id: string, userId: number): Promise<EventQueue>;
  heartbeat(q: EventQueue, json: string): void;
  saveAll(queues: Iterable<EventQueue>): Promise<void>;
  close(): void;
}

export type MakeHandover = (held: HeldQueues) => QueueHandoverPort;

/**
 * The event queues of this process, in memory: a poll is answered from here, and a new
 * event reaches a parked poll without leaving the process.
 *
 * In a cluster (src/cluster/queue-handover.ts) every node hears every bus entry in one order, and any node
 * may answer a poll. A queue is held by one node at a time; what another node needs to
 * rebuild it (its options and a checkpoint) is in Redis (src/cluster/durable-queues.ts).
 * A poll for a queue this node does not hold rebuilds it from the checkpoint by replaying
 * the bus, and the bus tells the node that held it to let go. Events are numbered the
 * same on every node, so the client sees no gap and no repeat, even when the node that
 * held its queue died.
 */
export class QueueManager {
  readonly nodeId: string;
  private queues = new Map<string, EventQueue>();
  /** A cluster node's part: queues moving between nodes, and their checkpoints in Redis. */
  private handover: QueueHandoverPort | undefined;
  private byUser = new Map<number, Set<EventQueue>>();
  private publicStreamQueues = new Map<number, Set<EventQueue>>();
  private gcTimer: NodeJS.Timeout;
  private beatTimer: NodeJS.Timeout;
  private draining = false;
  private unsubscribe: () => void;
  /** Events pushed onto queues since start (heartbeats not counted): read by the metrics. */
  delivered = 0;
  readonly generation = SERVER_GENERATION;

  /** `makeHandover`: given when this process is a node of a cluster. */
  constructor(private ctx: AppContext, makeHandover?: MakeHandover) {
    this.nodeId = ctx.bus.nodeId;
    this.unsubscribe = ctx.bus.subscribe((e, place) => this.deliver(e, place));
    if (makeHandover) {
      this.handover = makeHandover({
        all: () => this.queues.values(),
        find: (id) => this.queues.get(id),
        add: (q) => this.add(q),
        remove: (q, empty) => this.remove(q, empty),
        deliverTo: (q, env, place) => this.deliverTo(q, env, place),
      });
    }
    this.gcTimer = setInterval(() => this.collect(), 30_000);
    this.gcTimer.unref();
    // Heartbeats go out between heartbeatMs and a tenth of it later (at most a second).
    this.beatTimer = setInterval(() => this.beat(), Math.max(5, Math.min(1000, Math.floor(this.heartbeatMs() / 10))));
    this.beatTimer.unref();
  }

  get size(): number {
    return this.queues.size;
  }

  /** Polls parked now; counted when asked (a scrape), not kept on every park and answer. */
  parked(): number {
    let n = 0;
    for (const q of this.queues.values()) if (q.waiter) n += 1;
    return n;
  }

  /** A new queue; in a cluster, the promise settles once another node could rebuild it. */
  create(opts: QueueOptions): { queue: EventQueue; stored: Promise<void> } {
    const state: QueueState = { ...opts, id: `${this.nodeId}:${crypto.randomBytes(9).toString('base64url')}`, nextEventId: 0, events: [], lastAccess: Date.now() };
    const queue = this.add(new EventQueue(state));
    // It holds every entry after the bus position it was made at.
    const stored = this.handover ? this.handover.created(queue, opts) : Promise.resolve();
    return { queue, stored };
  }

  private add(q: EventQueue): EventQueue {
    this.queues.set(q.id, q);
    const set = this.byUser.get(q.state.userId) ?? new Set();
    set.add(q);
    this.byUser.set(q.state.userId, set);
    if (q.state.allPublicStreams) {
      const realmSet = this.publicStreamQueues.get(q.state.realmId) ?? new Set();
      realmSet.add(q);
      this.publicStreamQueues.set(q.state.realmId, realmSet);
    }
    return q;
  }

  /** The user's own queue, or Zulip's BAD_EVENT_QUEUE_ID: another user's queue does not exist for them. */
  get(id: string, userId: number): EventQueue {
    const q = this.queues.get(id);
    if (!q || q.state.userId !== userId) throw badEventQueueId(id);
    return q;
  }

  /** The queue from memory, or (in a cluster) rebuilt here from what Redis keeps of it. */
  find(id: string, userId: number): EventQueue | Promise<EventQueue> {
    const q = this.queues.get(id);
    if (q || !this.handover) return this.get(id, userId);
    return this.handover.takeOver(id, userId);
  }

  async delete(id: string, userId: number): Promise<void> {
    if (!this.handover) return this.remove(this.get(id, userId));
    const q = this.queues.get(id);
    if (q && q.state.userId === userId) this.remove(q);
    await this.handover.deleted(id, userId, q !== undefined && q.state.userId === userId);
  }

  private remove(q: EventQueue, empty = false): void {
    q.release(empty);
    this.queues.delete(q.id);
    this.byUser.get(q.state.userId)?.delete(q);
    this.publicStreamQueues.get(q.state.realmId)?.delete(q);
  }

  deliver(env: EventEnvelope, place: BusPlace = { at: '', after: '' }): void {
    this.handover?.heard(env, place);
    const recipients = new Set(env.userIds);
    const shaped = new Personalizer(env.event);
    for (const userId of recipients) {
      const queues = this.byUser.get(userId);
      if (!queues) continue;
      for (const q of queues) {
        if (q.state.realmId !== env.realmId || !q.wants(env.event.type)) continue;
        this.pushTo(q, shaped, userId, false, place);
      }
    }
    // all_public_streams queues also hear public-stream messages they were not sent.
    if (env.event.type === 'message' && env.event.public_stream === true) {
      for (const q of this.publicStreamQueues.get(env.realmId) ?? []) {
        if (recipients.has(q.state.userId) || !q.wants('message')) continue;
        this.pushTo(q, shaped, q.state.userId, true, place);
      }
    }
  }

  /** What deliver() gives one queue, for a queue being rebuilt: the same rules, in the same order. */
  private deliverTo(q: EventQueue, env: EventEnvelope, place: BusPlace): void {
    if (q.state.realmId !== env.realmId) return;
    const shaped = new Personalizer(env.event);
    if (env.userIds.includes(q.state.userId)) {
      if (q.wants(env.event.type)) this.pushTo(q, shaped, q.state.userId, false, place);
    } else if (env.event.type === 'message' && env.event.public_stream === true && q.state.allPublicStreams && q.wants('message')) {
      this.pushTo(q, shaped, q.state.userId, true, place);
    }
  }

  private pushTo(q: EventQueue, shaped: Personalizer, userId: number, viaPublicStream: boolean, place: BusPlace): void {
    const jsons = shaped.for(q, userId, viaPublicStream);
    if (jsons.length === 0) return;
    // Rebuilt from just before this entry, the queue numbers its events from here.
    const ck = this.handover ? { id: q.state.nextEventId, pos: place.after } : undefined;
    for (const json of jsons) q.push(json, ck);
    this.delivered += jsons.length;
  }

  /**
   * Events after lastEventId now, or undefined when the poll should wait: then `park`
   * it. Split so that a parked poll holds no promise, timer or async frame: with ten
   * thousand of them, each renewed every second, whatever a parked poll holds survives
   * the young-generation collections and is copied into the old one. Dropping those
   * objects cut the CPU per delivery by about a tenth (bench `events`).
   */
  take(q: EventQueue, lastEventId: number, dontBlock: boolean): QueuedEvent[] | undefined {
    const pending = q.acknowledge(lastEventId);
    this.handover?.polled(q);
    if (q.held) return dontBlock || this.draining ? [] : undefined;
    // Once shutdown has begun, a poll that slipped in answers at once instead of holding the server open.
    if (pending.length > 0 || dontBlock || this.draining) return [...pending];
    return undefined;
  }

  /** Parks a poll: `answer` runs once, with the events (a heartbeat after heartbeatMs of silence). */
  park(q: EventQueue, answer: (events: QueuedEvent[]) => void): void {
    q.release(); // a newer poll replaces an older one, as in Zulip
    q.parkedAt = Date.now();
    q.waiter = answer;
    // A parked poll keeps the process alive until its heartbeat, as a per-poll timer did.
    this.beatTimer.ref();
  }

  /** A parked poll whose client went away: the queue stays, idle from now. */
  unpark(q: EventQueue, answer: (events: QueuedEvent[]) => void): void {
    if (q.waiter !== answer) return;
    q.waiter = undefined;
    q.state.lastAccess = Date.now();
  }

  /** One timer for every parked poll's heartbeat, instead of one timer per poll. */
  private beat(now = Date.now()): void {
    const after = this.heartbeatMs();
    let parked = false;
    for (const q of this.queues.values()) {
      if (q.waiter && now - q.parkedAt >= after) this.heartbeat(q);
      parked ||= q.waiter !== undefined;
    }
    if (!parked) this.beatTimer.unref();
  }

  private heartbeat(q: EventQueue): void {
    if (this.handover) this.handover.heartbeat(q, HEARTBEAT);
    else q.push(HEARTBEAT);
  }

  private heartbeatMs(): number {
    return Math.min(this.ctx.config.heartbeatMs, (LONGPOLL_TIMEOUT_SECS - 5) * 1000);
  }

  /** Idle queues (nobody polling, nothing asked for within their lifespan) go away. */
  collect(now = Date.now()): void {
    for (const q of this.queues.values()) {
      if (!q.waiter && now - q.state.lastAccess > q.state.lifespanSecs * 1000) {
        this.remove(q);
        this.handover?.expired(q);
      }
    }
  }

  /** In a cluster, at shutdown: every queue's latest checkpoint, so that another node rebuilds it from there. */
  async saveAll(): Promise<void> {
    await this.handover?.saveAll(this.queues.values());
  }

  /** Those of these users with a queue here that accepts message events (Zulip's receiver_is_off_zulip, negated). */
  withMessageQueues(userIds: Iterable<number>): Set<number> {
    const out = new Set<number>();
    for (const id of userIds) {
      for (const q of this.byUser.get(id) ?? []) {
        if (q.wants('message')) {
          out.add(id);
          break;
        }
      }
    }
    return out;
  }

  get clustered(): boolean {
    return this.handover !== undefined;
  }

  /** Shutdown: parked polls answer at once, and so do any that arrive after. */
  drain(): void {
    this.draining = true;
    for (const q of this.queues.values()) q.release();
  }

  file(): string {
    return path.join(this.ctx.config.dataDir, 'event-queues.json');
  }

  save(): void {
    ensurePrivateDir(this.ctx.config.dataDir);
    const states = [...this.queues.values()].map((q) => q.state);
    // Whole or not at all, and private: the queues hold message contents.
    writePrivateFile(this.file(), JSON.stringify({ nodeId: this.nodeId, queues: states }));
  }

  /**
   * Queues saved by a graceful shutdown come back; those that accept it are told about the
   * restart. A snapshot that cannot be read or parsed is moved aside (named with the time)
   * and logged, so that it is neither lost silently nor tried again at every start.
   */
  restore(): number {
    const file = this.file();
    let saved: { queues: QueueState[] };
    try {
      saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { queues: QueueState[] };
      if (!saved || !Array.isArray(saved.queues) || !saved.queues.every((q) => q && typeof q === 'object' && Array.isArray(q.events))) {
        throw new Error('not a snapshot of event queues');
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      let movedTo: string | undefined;
      try {
        fs.renameSync(file, aside);
        movedTo = aside;
      } catch (renameErr) {
        this.ctx.log.error({ file, err: renameErr }, 'could not move the unreadable event queue snapshot aside');
      }
      this.ctx.log.warn({ file, movedTo, err }, `event queue snapshot ${file} is unreadable or corrupt; its queues are not restored`);
      return 0;
    }
    fs.rmSync(file, { force: true });
    const restart = JSON.stringify({ type: 'restart', ...versionFields(this.ctx.config.featureLevel), server_generation: this.generation });
    // As Zulip (since level 240, for clients of every level: no capability guards it), the
    // restart tells what the server now is, and a separate event asks the clients whose code
    // the server serves (the web app, which this process may have just upgraded) to reload.
    // Never `immediate`: Parley has no development mode that would skip the thundering-herd backoff.
    const reload = JSON.stringify({ type: 'web_reload_client', immediate: false });
    for (const state of saved.queues) {
      // Files saved before events were kept serialised hold them as objects.
      const events = state.events.map((e) => (typeof e.json === 'string' ? e : { id: e.id, json: JSON.stringify({ ...e, id: undefined }) }));
      const q = this.add(new EventQueue({ ...state, events, lastAccess: Date.now() }));
      if (q.wants('restart')) q.push(restart);
      if (q.wants('web_reload_client')) q.push(reload);
    }
    return saved.queues.length;
  }

  close(): void {
    clearInterval(this.gcTimer);
    clearInterval(this.beatTimer);
    this.unsubscribe();
    this.handover?.close();
  }
}

const managers = new WeakMap<AppContext, QueueManager>();

export function installQueueManager(ctx: AppContext, makeHandover?: MakeHandover): QueueManager {
  const m = new QueueManager(ctx, makeHandover);
  managers.set(ctx, m);
  ctx.drainHooks.push(() => m.drain());
  if (m.clustered) {
    // The queues outlive this node in Redis: its clients' next polls go to the others,
    // which rebuild them; nothing is saved to disk and no restart event is sent.
    ctx.shutdownHooks.push(async () => {
      await m.saveAll();
      m.close();
    });
    return m;
  }
  const restored = m.restore();
  if (restored > 0) ctx.log.info({ restored }, 'restored event queues');
  ctx.shutdownHooks.push(async () => {
    m.save();
    m.close();
  });
  return m;
}

/** The manager, if this process has one (the admin CLI has none). */
export function queuesIfInstalled(ctx: AppContext): QueueManager | undefined {
  return managers.get(ctx);
}

export function queuesOf(ctx: AppContext): QueueManager {
  const m = managers.get(ctx);
  if (!m) throw new Error('queue manager not installed');
  return m;
}
