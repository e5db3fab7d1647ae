import { ensurePrivateDir, writePrivateFile } from '../lib/private-files.js';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import type { EventEnvelope } from './types.js';
import { EventQueue, type QueueOptions, type QueueState, type QueuedEvent } from './queue.js';
import { Personalizer } from './personalize.js';
import { badEventQueueId } from '../errors.js';
import { SERVER_GENERATION, versionFields } from '../lib/version.js';


/** Zulip's long-poll ceiling; a parked poll always answers before this. */
export const LONGPOLL_TIMEOUT_SECS = 90;

const HEARTBEAT = JSON.stringify({ type: 'heartbeat' });

/**
 * The event queues of this process. Ownership: a queue lives in the process that
 * registered it, and its id starts with that process's node id (`<node>:<random>`).
 * With several nodes, every node hears every envelope on the shared bus, delivers to the
 * queues it owns, and the load balancer (or a forwarding node) routes GET /events by the
 * id's node prefix; a queue is never split between nodes.
 */
export class QueueManager {
  readonly nodeId = crypto.randomBytes(4).toString('hex');
  private queues = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private publicStreamQueues = new Map<number, Set<EventQueue>>();
  private gcTimer: NodeJS.Timeout;
  private beatTimer: NodeJS.Timeout;
  private draining = false;
  private unsubscribe: () => void;
  readonly generation = SERVER_GENERATION;

  constructor(private ctx: AppContext) {
    this.unsubscribe = ctx.bus.subscribe((e) => this.deliver(e));
    this.gcTimer = setInterval(() => this.collect(), 30_000);
    this.gcTimer.unref();
    // Heartbeats go out between heartbeatMs and a tenth of it later (at most a second).
    this.beatTimer = setInterval(() => this.beat(), Math.max(5, Math.min(1000, Math.floor(this.heartbeatMs() / 10))));
    this.beatTimer.unref();
  }

  get size(): number {
    return this.queues.size;
  }

  create(opts: QueueOptions): EventQueue {
    const state: QueueState = { ...opts, id: `${this.nodeId}:${crypto.randomBytes(9).toString('base64url')}`, nextEventId: 0, events: [], lastAccess: Date.now() };
    return this.add(new EventQueue(state));
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

  delete(id: string, userId: number): void {
    const q = this.get(id, userId);
    this.remove(q);
  }

  private remove(q: EventQueue): void {
    q.release();
    this.queues.delete(q.id);
    this.byUser.get(q.state.userId)?.delete(q);
    this.publicStreamQueues.get(q.state.realmId)?.delete(q);
  }

  deliver(env: EventEnvelope): void {
    const recipients = new Set(env.userIds);
    const shaped = new Personalizer(env.event);
    for (const userId of recipients) {
      const queues = this.byUser.get(userId);
      if (!queues) continue;
      for (const q of queues) {
        if (q.state.realmId !== env.realmId || !q.wants(env.event.type)) continue;
        for (const json of shaped.for(q, userId, false)) q.push(json);
      }
    }
    // all_public_streams queues also hear public-stream messages they were not sent.
    if (env.event.type === 'message' && env.event.public_stream === true) {
      for (const q of this.publicStreamQueues.get(env.realmId) ?? []) {
        if (recipients.has(q.state.userId) || !q.wants('message')) continue;
        for (const json of shaped.for(q, q.state.userId, true)) q.push(json);
      }
    }
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
      if (q.waiter && now - q.parkedAt >= after) q.push(HEARTBEAT);
      parked ||= q.waiter !== undefined;
    }
    if (!parked) this.beatTimer.unref();
  }

  private heartbeatMs(): number {
    return Math.min(this.ctx.config.heartbeatMs, (LONGPOLL_TIMEOUT_SECS - 5) * 1000);
  }

  /** Idle queues (nobody polling, nothing asked for within their lifespan) go away. */
  collect(now = Date.now()): void {
    for (const q of this.queues.values()) {
      if (!q.waiter && now - q.state.lastAccess > q.state.lifespanSecs * 1000) this.remove(q);
    }
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
    const restart = JSON.stringify({ type: 'restart', ...versionFields(), server_generation: this.generation, immediate: true });
    for (const state of saved.queues) {
      // Files saved before events were kept serialised hold them as objects.
      const events = state.events.map((e) => (typeof e.json === 'string' ? e : { id: e.id, json: JSON.stringify({ ...e, id: undefined }) }));
      const q = this.add(new EventQueue({ ...state, events, lastAccess: Date.now() }));
      if (q.wants('restart')) q.push(restart);
    }
    return saved.queues.length;
  }

  close(): void {
    clearInterval(this.gcTimer);
    clearInterval(this.beatTimer);
    this.unsubscribe();
  }
}

const managers = new WeakMap<AppContext, QueueManager>();

export function installQueueManager(ctx: AppContext): QueueManager {
  const m = new QueueManager(ctx);
  managers.set(ctx, m);
  const restored = m.restore();
  if (restored > 0) ctx.log.info({ restored }, 'restored event queues');
  ctx.drainHooks.push(() => m.drain());
  ctx.shutdownHooks.push(async () => {
    m.save();
    m.close();
  });
  return m;
}

export function queuesOf(ctx: AppContext): QueueManager {
  const m = managers.get(ctx);
  if (!m) throw new Error('queue manager not installed');
  return m;
}
